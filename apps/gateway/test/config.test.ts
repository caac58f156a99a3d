import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../src/app/check-config";
import { configJsonSchemaText } from "../src/config/json-schema";
import { loadConfigFile, parseConfig } from "../src/config/load-config";
import { resolveSecrets } from "../src/config/secrets";
import { ConfigError } from "../src/errors";

function problemsOf(document: unknown) {
  try {
    parseConfig(document);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const connection = {
  id: "local",
  provider: "ollama",
  authType: "none",
  protocol: "openai",
  baseUrl: "http://127.0.0.1:11434/v1",
  models: ["qwen2.5-coder:7b"],
};

describe("configuration", () => {
  it("defaults: 127.0.0.1:4141, SQLite under .planfirst/, 120 s upstream timeout", () => {
    const config = parseConfig({ connections: [connection] });
    expect(config.server).toMatchObject({ host: "127.0.0.1", port: 4141, apiKeys: [] });
    expect(config.storage).toMatchObject({ driver: "sqlite", path: ".planfirst/state.db" });
    expect(config.connections[0]!.timeoutMs).toBe(120_000);
    expect(config.subscriptionLadder).toMatchObject({ exitCutoffPercent: 2, budgetWindow: "day" });
  });

  it("errors name the path and the allowed values; unknown keys are rejected", () => {
    const problems = problemsOf({
      server: { prot: 1 },
      connections: [{ ...connection, protocol: "grpc" }],
      storage: { driver: "postgres" },
    });
    expect(problems).toContainEqual({
      path: "connections[0].protocol",
      message: 'must be one of "anthropic", "openai", "openai-responses", "gemini"',
    });
    expect(problems).toContainEqual({
      path: "storage.driver",
      message: 'must be one of "sqlite", "memory", "redis"',
    });
    const unknown = problems.find((p) => p.path === "server");
    expect(unknown?.message).toContain('unknown key "prot"');
    expect(unknown?.message).toContain("allowed: host, port, apiKeys");
  });

  it("an unknown budget time zone is refused with its path, not when the ledger is built", () => {
    expect(problemsOf({ subscriptionLadder: { budgetTimeZone: "Mars/Olympus_Mons" } })).toEqual([
      {
        path: "subscriptionLadder.budgetTimeZone",
        message: "must be an IANA time zone such as UTC or Europe/Paris",
      },
    ]);
    expect(parseConfig({ subscriptionLadder: { budgetTimeZone: "Europe/Paris" } })).toBeTruthy();
  });

  it("maxConcurrent is absent (unlimited) by default and a positive integer when set; the wait in line defaults to 30 s", () => {
    const config = parseConfig({ connections: [connection] });
    expect(config.connections[0]!.maxConcurrent).toBeUndefined();
    expect(config.connections[0]!.maxQueueWaitMs).toBe(30_000);
    expect(
      parseConfig({ connections: [{ ...connection, maxConcurrent: 4, maxQueueWaitMs: 0 }] })
        .connections[0],
    ).toMatchObject({ maxConcurrent: 4, maxQueueWaitMs: 0 });
    for (const maxConcurrent of [0, -1, 1.5, "4"]) {
      const problems = problemsOf({ connections: [{ ...connection, maxConcurrent }] });
      expect(problems.map((problem) => problem.path)).toEqual(["connections[0].maxConcurrent"]);
    }
    for (const maxQueueWaitMs of [-1, 2.5, 2 ** 31]) {
      const problems = problemsOf({ connections: [{ ...connection, maxQueueWaitMs }] });
      expect(problems.map((problem) => problem.path)).toEqual(["connections[0].maxQueueWaitMs"]);
    }
  });

  it("B5: a budget on a quota rung is refused by config validation", () => {
    const problems = problemsOf({
      subscriptionLadder: { rungBudgetUsd: { subscription: 5, cheap: 1 } },
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe("subscriptionLadder.rungBudgetUsd.subscription");
    expect(problems[0]!.message).toContain("cheap");
  });

  it("client key entries: a bad budget, limit, role or window is refused at its path", () => {
    const problems = problemsOf({
      server: {
        apiKeys: [
          { key: "env:A", id: "a", budgetUsd: -1 },
          { key: "env:B", id: "b", budgetUsd: 1, role: "root", budgetWindow: "year" },
          { key: "env:C", id: "c", maxConcurrent: 1.5, requestsPerMinute: 0, rpm: 5 },
        ],
      },
    });
    expect(problems).toEqual([
      {
        path: "server.apiKeys[0].budgetUsd",
        message: "must be a number of USD ≥ 0 (0 = no paid rung for this key)",
      },
      { path: "server.apiKeys[1].role", message: 'must be one of "admin", "client"' },
      {
        path: "server.apiKeys[1].budgetWindow",
        message: 'must be one of "day", "week", "month"',
      },
      { path: "server.apiKeys[2].maxConcurrent", message: "must be a whole number of requests" },
      {
        path: "server.apiKeys[2].requestsPerMinute",
        message: "must be at least 1 (remove it for no limit)",
      },
      {
        path: "server.apiKeys[2]",
        message:
          'unknown key "rpm"; allowed: key, id, connections, role, budgetUsd, budgetWindow, maxConcurrent, requestsPerMinute',
      },
    ]);
    expect(
      problemsOf({ server: { apiKeys: [{ key: "env:D", id: "d", budgetWindow: "week" }] } }),
    ).toEqual([
      {
        path: "server.apiKeys[0].budgetWindow",
        message: "is the window of budgetUsd, which this key does not set",
      },
    ]);
  });

  it("client key entries resolve to a role, a budget in its window and limits; a bare env:NAME is a client without either", () => {
    const config = parseConfig({
      subscriptionLadder: { budgetWindow: "week" },
      server: {
        apiKeys: [
          "env:PF_BARE",
          { key: "env:PF_OPS", id: "ops", role: "admin", maxConcurrent: 4 },
          { key: "env:PF_TEAM", id: "team", budgetUsd: 0.05, requestsPerMinute: 60 },
          { key: "env:PF_CI", id: "ci", budgetUsd: 2, budgetWindow: "month" },
        ],
      },
    });
    const keys = resolveSecrets(config, {
      PF_BARE: "k1",
      PF_OPS: "k2",
      PF_TEAM: "k3",
      PF_CI: "k4",
    }).clientKeys.map(({ key: _secret, ...rest }) => rest);
    expect(keys).toEqual([
      { id: "PF_BARE", connections: null, role: "client", budget: null, limits: null },
      {
        id: "ops",
        connections: null,
        role: "admin",
        budget: null,
        limits: { maxConcurrent: 4, requestsPerMinute: null },
      },
      {
        id: "team",
        connections: null,
        role: "client",
        budget: { scope: "key:team", budgetUsd: 0.05, window: "week" },
        limits: { maxConcurrent: null, requestsPerMinute: 60 },
      },
      {
        id: "ci",
        connections: null,
        role: "client",
        budget: { scope: "key:ci", budgetUsd: 2, window: "month" },
        limits: null,
      },
    ]);
  });

  it("secrets are env:NAME references; a literal credential is refused", () => {
    const problems = problemsOf({
      connections: [
        { ...connection, id: "x", provider: "openai", authType: "apikey", credential: "sk-live" },
      ],
    });
    expect(problems[0]!.path).toBe("connections[0].credential");
    expect(JSON.stringify(problems)).not.toContain('sk-live"');
  });

  it("an unset env: reference is named: a client key is an error, a credential disables its connection", () => {
    const config = parseConfig({
      server: { apiKeys: ["env:PF_MISSING_CLIENT_KEY"] },
      connections: [
        {
          ...connection,
          id: "paid",
          provider: "openai",
          authType: "apikey",
          credential: "env:PF_MISSING_OPENAI",
        },
      ],
    });
    expect(() => resolveSecrets(config, {})).toThrow(/PF_MISSING_CLIENT_KEY is not set/);
    const secrets = resolveSecrets(config, { PF_MISSING_CLIENT_KEY: "k" });
    expect(secrets.disabledConnections.get("paid")).toBe(
      "credential env:PF_MISSING_OPENAI is not set",
    );
    expect(secrets.warnings.join()).toContain("PF_MISSING_OPENAI");
  });

  it("YAML and JSON files load the same way", () => {
    const dir = mkdtempSync(join(tmpdir(), "planfirst-config-"));
    writeFileSync(join(dir, "a.json"), JSON.stringify({ connections: [connection] }));
    writeFileSync(
      join(dir, "a.yaml"),
      "connections:\n  - id: local\n    provider: ollama\n    authType: none\n    protocol: openai\n    baseUrl: http://127.0.0.1:11434/v1\n    models: ['qwen2.5-coder:7b']\n",
    );
    expect(loadConfigFile(join(dir, "a.yaml"))).toEqual(loadConfigFile(join(dir, "a.json")));
    expect(() => loadConfigFile(join(dir, "missing.yaml"))).toThrow(ConfigError);
  });

  it("the committed example runs with no secret set", () => {
    const example = fileURLToPath(new URL("../../../planfirst.example.yaml", import.meta.url));
    const config = loadConfigFile(example);
    const secrets = resolveSecrets(config, {});
    expect(secrets.disabledConnections.size).toBeGreaterThan(0);
    expect(secrets.credentials.get("local")).toBeNull();
  });

  it("config.schema.json is the generated JSON Schema (no drift)", () => {
    const committed = readFileSync(new URL("../config.schema.json", import.meta.url), "utf8");
    // Compared as JSON: the committed file is formatted by biome, the generator's text is not.
    expect(JSON.parse(committed)).toEqual(JSON.parse(configJsonSchemaText()));
  });

  it("checkConfig reports unknown billing, soft-stop plans, unpriced models, unset secrets and empty categories", () => {
    const config = parseConfig({
      connections: [
        {
          ...connection,
          id: "mystery",
          provider: "someprovider",
          authType: "apikey",
          protocol: "gemini",
          credential: "env:PF_UNSET_1",
          models: ["m1"],
        },
        {
          ...connection,
          id: "claude",
          provider: "claude",
          authType: "oauth",
          protocol: "anthropic",
          credential: "env:PF_UNSET_2",
          models: ["claude-sonnet-4-5"],
        },
      ],
      categories: { writing: ["gpt-*"] },
    });
    const codes = checkConfig(config, {}).map((f) => `${f.code}:${f.path}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        "unset_secret:connections[0].credential",
        "unset_secret:connections[1].credential",
        "unknown_billing:connections[0]",
        "overage_not_hard_stop:connections[1]",
        "unpriced_model:connections[0].models[0]",
        "empty_category:categories.writing",
      ]),
    );
    // No connector serves "someprovider" (and gemini has no generic one): the one error;
    // everything else only warns.
    const errors = checkConfig(config, {}).filter((f) => f.severity === "error");
    expect(errors.map((f) => `${f.code}:${f.path}`)).toEqual(["unknown_connector:connections[0]"]);
  });
});
