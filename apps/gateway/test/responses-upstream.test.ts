import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { binPath, runCli, tempDir } from "./cli-runner";
import { codexPlanConnection, codexPlanEnv } from "./fixtures";
import { createClock, type Harness, post, startHarness, type TestClock } from "./harness";

// A Responses upstream (a ChatGPT plan through the Codex backend fake): Responses clients are
// relayed to it unchanged, so what only a Responses server holds (`previous_response_id`,
// `/compact`) reaches it.

let clock: TestClock;
let plans: FakePlanProviders;
let running: Harness[] = [];
const temps: { remove(): void }[] = [];

beforeAll(async () => {
  clock = createClock();
  plans = await startFakePlanProviders({ now: () => clock.now(), accessTokenTtlSec: 3600 });
});
afterAll(() => plans.close());
afterEach(async () => {
  await Promise.all(running.map((harness) => harness.close()));
  running = [];
  plans.hits.length = 0;
  for (const temp of temps.splice(0)) temp.remove();
});

async function gateway(): Promise<Harness> {
  const harness = await startHarness({
    clock,
    config: {
      connections: [codexPlanConnection(plans, { timeoutMs: 5_000 })],
      catalog: {
        connections: [
          {
            provider: "codex",
            authType: "oauth",
            billing: "subscription",
            overage: "hard-stop",
            reason: "test: the account has no credits, so the plan stops at its limit",
            sources: ["https://example.invalid/terms"],
            reviewed: "2026-11-30",
          },
        ],
      },
    },
    env: codexPlanEnv(plans),
  });
  running.push(harness);
  return harness;
}

function backendHits(path: string) {
  return plans.hits.filter((hit) => hit.path === path);
}

describe("a Responses upstream", () => {
  it("gets previous_response_id, include and store as the client sent them", async () => {
    const harness = await gateway();
    const response = await post(harness.url, "/v1/responses", {
      model: "gpt-5-codex",
      input: "continue",
      previous_response_id: "resp_earlier",
      include: ["reasoning.encrypted_content"],
      store: false,
      stream: true,
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("event: response.completed");
    const sent = backendHits("/backend-api/codex/responses").at(-1)?.body as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({
      previous_response_id: "resp_earlier",
      include: ["reasoning.encrypted_content"],
      store: false,
    });
  });

  it("is where /v1/responses/compact goes", async () => {
    const harness = await gateway();
    await post(harness.url, "/v1/responses/compact", { model: "gpt-5-codex", input: "long" });
    expect(backendHits("/backend-api/codex/responses/compact")).toHaveLength(1);
  });

  it("serves codex exec itself, relayed frame for frame", async () => {
    const harness = await gateway();
    const home = tempDir("planfirst-codex-home-");
    const codexHome = tempDir("planfirst-codex-config-");
    const cwd = tempDir("planfirst-codex-cwd-");
    temps.push(home, codexHome, cwd);
    writeFileSync(
      join(codexHome.path, "config.toml"),
      `model = "auto/subscription"\nmodel_provider = "planfirst"\n\n[model_providers.planfirst]\nname = "planfirst"\nbase_url = "${harness.url}/v1"\nenv_key = "PLANFIRST_API_KEY"\nwire_api = "responses"\n`,
    );
    const run = await runCli(binPath("codex"), ["exec", "--skip-git-repo-check", "say hi"], {
      cwd: cwd.path,
      timeoutMs: 60_000,
      env: { HOME: home.path, CODEX_HOME: codexHome.path, PLANFIRST_API_KEY: "unused" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ok$/m);
    const sent = backendHits("/backend-api/codex/responses").at(-1)?.body as {
      model: string;
      tools: { type: string }[];
    };
    // Relayed, not translated: Codex's hosted and namespaced tools reach the Responses server.
    expect(sent.model).toBe("gpt-5-codex");
    expect(sent.tools.map((t) => t.type)).toContain("namespace");
  }, 90_000);
});
