import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CODEX_FAKE_CLIENT_ID,
  type FakePlanProviders,
  startFakePlanProviders,
} from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkConfig } from "../src/app/check-config";
import { parseConfig } from "../src/config/load-config";
import { createSqliteCredentialPersistence } from "../src/connectors/sqlite-credential-persistence";
import { codexPlanConnection } from "./fixtures";
import { chatBody, createClock, type Harness, post, startHarness } from "./harness";

// How connections reach their connectors at start: a stored login, settings a connector refuses,
// a login variable left unset. The gateway starts in every case; only the broken connection is off.

const clock = createClock();
let plans: FakePlanProviders;
let dir: string;
let running: Harness[] = [];

beforeAll(async () => {
  plans = await startFakePlanProviders({ now: clock.now });
  dir = mkdtempSync(join(tmpdir(), "planfirst-connectors-config-"));
});
afterAll(async () => {
  await plans.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(running.map((harness) => harness.close()));
  running = [];
});

const zai = () => ({
  id: "zai",
  provider: "zai",
  authType: "apikey",
  protocol: "openai" as const,
  baseUrl: plans.zai.baseUrl,
  credential: "env:ZAI_KEY",
  models: ["glm-4.6"],
});

describe("connections and their connectors at start", () => {
  it("serves a ChatGPT login imported into the SQLite store, and writes the rotated token back", async () => {
    const path = join(dir, "login.db");
    const login = plans.codex.issueLogin();
    const store = createSqliteCredentialPersistence(path);
    await store.write("login:codex", {
      provider: "codex",
      accessToken: login.accessToken,
      refreshToken: login.refreshToken,
      expiresAtMs: login.expiresAtSec * 1000,
      fields: { accountId: plans.codex.accountId },
      updatedAtMs: clock.now(),
    });
    store.close();
    const harness = await startHarness({
      clock,
      storage: { driver: "sqlite", path },
      config: {
        connections: [
          codexPlanConnection(plans, {
            credential: {
              login: "codex",
              tokenUrl: plans.codex.tokenUrl,
              clientId: CODEX_FAKE_CLIENT_ID,
            },
          }),
        ],
      },
    });
    running.push(harness);
    const body = { model: "gpt-5-codex", input: "hello", stream: true };
    const first = await post(harness.url, "/v1/responses", body);
    expect(first.status, await first.text()).toBe(200);

    clock.advance(2 * 3_600_000); // past the login's expiry: refreshed, rotated, stored
    const second = await post(harness.url, "/v1/responses", body);
    expect(second.status, await second.text()).toBe(200);
    const reader = createSqliteCredentialPersistence(path);
    const stored = await reader.read("login:codex");
    reader.close();
    expect(stored?.refreshToken).not.toBe(login.refreshToken);
    expect(stored?.expiresAtMs).toBeGreaterThan(clock.now());
  });

  it("disables a connection its connector refuses or whose login variable is unset, and keeps serving the rest", async () => {
    const harness = await startHarness({
      clock,
      env: { ZAI_KEY: plans.zai.apiKey },
      config: {
        connections: [
          zai(),
          {
            ...zai(),
            id: "mystery",
            provider: "acme-llm",
            protocol: "gemini",
            models: ["acme-1"],
          },
          { ...zai(), id: "wrong-wire", protocol: "openai-responses", models: ["glm-x"] },
          {
            id: "copilot",
            provider: "github-copilot",
            authType: "oauth",
            protocol: "openai",
            credential: { githubToken: "env:GH_TOKEN_UNSET" },
            models: ["gpt-4.1"],
          },
        ],
      },
    });
    running.push(harness);
    const warnings = harness.server.gateway.warnings.join("\n");
    expect(warnings).toMatch(
      /mystery is disabled: .*no connector for provider "acme-llm".*protocol "gemini" has no generic connector/,
    );
    expect(warnings).toMatch(/wrong-wire is disabled: .*speaks protocol "openai" upstream/);
    expect(warnings).toMatch(/copilot is disabled: credential env:GH_TOKEN_UNSET is not set/);
    const served = await post(harness.url, "/v1/chat/completions", chatBody("glm-4.6"));
    expect(served.status).toBe(200);
    for (const model of ["acme-1", "glm-x", "gpt-4.1"]) {
      const refused = await post(harness.url, "/v1/chat/completions", chatBody(model));
      expect(refused.status, model).not.toBe(200);
    }
  });

  it("planfirst check names a connection no connector serves, and each unset login variable", () => {
    const config = parseConfig({
      connections: [
        { ...zai(), id: "mystery", provider: "acme-llm", protocol: "gemini" },
        {
          id: "chatgpt",
          provider: "codex",
          authType: "oauth",
          protocol: "openai-responses",
          credential: { refreshToken: "env:PF_UNSET_RT", accountId: "env:PF_UNSET_ACCOUNT" },
          models: ["gpt-5-codex"],
        },
      ],
    });
    const findings = checkConfig(config, {});
    expect(findings.map((f) => `${f.severity}:${f.code}:${f.path}`)).toEqual(
      expect.arrayContaining([
        "error:unknown_connector:connections[0]",
        "warning:unset_secret:connections[1].credential",
      ]),
    );
    const unset = findings.filter((f) => f.code === "unset_secret").map((f) => f.message);
    expect(unset.some((m) => m.includes("env:PF_UNSET_RT"))).toBe(true);
    expect(unset.some((m) => m.includes("env:PF_UNSET_ACCOUNT"))).toBe(true);
  });

  it("refuses a login object with no secret in it, and a literal secret", () => {
    expect(() =>
      parseConfig({
        connections: [{ ...zai(), credential: { tokenUrl: "https://auth.example/token" } }],
      }),
    ).toThrow(/needs login, refreshToken, accessToken or githubToken/);
    expect(() =>
      parseConfig({ connections: [{ ...zai(), credential: { refreshToken: "rt-literal" } }] }),
    ).toThrow(/env:NAME reference/);
  });
});
