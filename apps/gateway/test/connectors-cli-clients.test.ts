import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakePlanProviders, startFakePlanProviders } from "@planfirst/fake-upstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLANFIRST_USER_AGENT } from "../src/connectors/connector";
import { pinKeyOf, sessionHash } from "../src/routing/session-key";
import { codexPlanConnection, codexPlanEnv } from "./fixtures";
import { createClock, type Harness, refusedUpgrades, startHarness } from "./harness";

// The official clients, unmodified, through planfirst to plan connectors' fakes: the Codex CLI
// (`codex exec`, Responses over SSE, its provider entry without a `supports_websockets` line) to
// the ChatGPT backend, and Claude Code (`claude -p`, Anthropic Messages) to a Copilot seat's chat
// completions through the hub.

const BIN = fileURLToPath(new URL("../node_modules/.bin/", import.meta.url));
const CLIENT_KEY = "pf-client-secret-value-cli-0001";

let plans: FakePlanProviders;
let harness: Harness;
let home: string;

beforeAll(async () => {
  const clock = createClock(Date.now());
  plans = await startFakePlanProviders({ now: clock.now });
  harness = await startHarness({
    clock,
    env: {
      CLIENT_KEY,
      ...codexPlanEnv(plans),
      GH_TOKEN: plans.copilot.githubToken,
    },
    config: {
      server: { apiKeys: ["env:CLIENT_KEY"] },
      connections: [
        codexPlanConnection(plans),
        {
          id: "copilot",
          provider: "github-copilot",
          authType: "oauth",
          protocol: "openai",
          usageUrl: plans.copilot.userUrl,
          credential: { githubToken: "env:GH_TOKEN", tokenUrl: plans.copilot.tokenUrl },
          models: ["claude-sonnet-4.5"],
        },
      ],
    },
  });
  home = mkdtempSync(join(tmpdir(), "planfirst-cli-clients-"));
});

afterAll(async () => {
  await harness?.close();
  await plans?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs a client binary to its end; rejects past `timeoutMs` (real time: a hung client). */
function run(
  bin: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN, bin), args, {
      env: { PATH: process.env.PATH ?? "", ...env },
      cwd: home,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${bin} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("official clients through plan connectors", () => {
  it("codex exec reaches the ChatGPT backend through planfirst's /v1/responses", async () => {
    const codexHome = join(home, "codex-home");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        'model = "gpt-5-codex"',
        'model_provider = "planfirst"',
        "",
        "[model_providers.planfirst]",
        'name = "planfirst"',
        `base_url = "${harness.url}/v1"`,
        'env_key = "PLANFIRST_CLIENT_KEY"',
        'wire_api = "responses"',
        "",
      ].join("\n"),
    );
    const before = plans.hits.length;
    const result = await run("codex", ["exec", "--skip-git-repo-check", "say ok"], {
      HOME: home,
      CODEX_HOME: codexHome,
      PLANFIRST_CLIENT_KEY: CLIENT_KEY,
    });
    const hits = plans.hits
      .slice(before)
      .filter((hit) => hit.path === "/backend-api/codex/responses");
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain("ok");
    expect(hits.length).toBeGreaterThanOrEqual(1);
    // Over HTTP from the first request: no WebSocket handshake was tried and refused on the way.
    expect(refusedUpgrades(harness.logs)).toBe(0);
    const hit = hits[0]!;
    expect(hit.headers["chatgpt-account-id"]).toBe(plans.codex.accountId);
    // The Codex CLI's own identification reaches the backend as it sent it.
    expect(hit.headers.originator).toBe("codex_exec");
    expect(hit.headers["user-agent"]).toMatch(/^codex_exec\//);
    expect((hit.body as { stream?: unknown }).stream).toBe(true);
    // Codex CLI 0.171.0 names its conversation in the body's prompt_cache_key (no session_id
    // header on this path): the session is recognised by it, and the key itself goes on as sent.
    const cacheKey = (hit.body as { prompt_cache_key?: string }).prompt_cache_key;
    expect(cacheKey).toMatch(/^[0-9a-f-]{36}$/);
    const pin = harness.server.gateway.deps.sessions?.pinOf(
      pinKeyOf(sessionHash("CLIENT_KEY", "openai", cacheKey!), "gpt-5-codex"),
    );
    expect(pin?.connectionId).toBe("chatgpt");
  });

  it("claude -p reaches a Copilot-backed Claude model through the hub's Messages to chat path", async () => {
    const claudeHome = join(home, "claude-home");
    mkdirSync(claudeHome, { recursive: true });
    const before = plans.hits.length;
    const result = await run("claude", ["-p", "say ok", "--model", "claude-sonnet-4.5"], {
      HOME: claudeHome,
      ANTHROPIC_BASE_URL: harness.url,
      ANTHROPIC_API_KEY: CLIENT_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    });
    const hits = plans.hits.slice(before).filter((hit) => hit.path === "/copilot/chat/completions");
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain("ok");
    expect(hits.length).toBeGreaterThanOrEqual(1);
    expect(hits.every((hit) => hit.scheme === "Bearer")).toBe(true);
    // Claude Code names no editor: planfirst names itself, never another client.
    for (const hit of hits) {
      expect(hit.headers["editor-version"]).toBe(PLANFIRST_USER_AGENT);
      expect(hit.headers["user-agent"]).toMatch(/^claude-cli\//);
    }
  });
});
