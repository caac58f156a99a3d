import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoSecret, TEST_SECRETS, testConfigDocument } from "./helpers/gateway";
import { runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("check");

async function writeConfig(name: string, document: unknown): Promise<string> {
  const file = join(tmp.path, name);
  await writeFile(file, JSON.stringify(document, null, 2));
  return file;
}

describe("planfirst check", () => {
  it("a good config with every secret set exits 0 with no findings", async () => {
    const file = await writeConfig(
      "good.json",
      testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1"),
    );
    const run = await runCli(["check", "--config", file, "--json"], { env: { ...TEST_SECRETS } });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, errors: [], warnings: [] });
    expectNoSecret(run.stdout + run.stderr);
  });

  it("warnings (unset credential, unknown billing, unpriced model, empty category) exit 0 and are listed", async () => {
    const document = testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1");
    document.connections.push({
      id: "mystery",
      // Served by the generic OpenAI-compatible connector, unknown to the billing catalog.
      provider: "openai-compatible",
      authType: "apikey",
      protocol: "openai",
      baseUrl: "http://127.0.0.1:3/v1",
      credential: "env:TEST_MYSTERY_KEY",
      models: ["mystery-model-1"],
    });
    (document.categories as Record<string, string[]>).vision = ["nothing-matches-*"];
    const file = await writeConfig("warnings.json", document);
    const run = await runCli(["check", "--config", file, "--json"], {
      env: { ...TEST_SECRETS, TEST_MYSTERY_KEY: undefined },
    });
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.errors).toEqual([]);
    const codes = doc.warnings.map((w: { code: string }) => w.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        "unset_secret",
        "unknown_billing",
        "unpriced_model",
        "empty_category",
      ]),
    );
    const unset = doc.warnings.find((w: { code: string }) => w.code === "unset_secret");
    expect(unset.message).toContain("TEST_MYSTERY_KEY");

    const human = await runCli(["check", "--config", file], {
      env: { ...TEST_SECRETS, TEST_MYSTERY_KEY: undefined },
    });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain("ok with warnings");
    expect(human.stdout).toContain("categories.vision");
    expectNoSecret(human.stdout + human.stderr);
  });

  it("says which generic connector serves a provider with no connector of its own, as a note that is no problem", async () => {
    const document = testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1");
    const acme = {
      id: "acme",
      provider: "acme-coding",
      authType: "apikey",
      protocol: "openai",
      baseUrl: "http://127.0.0.1:3/v1",
      credential: "env:TEST_ACME_KEY",
      models: ["acme-coder-1"],
    };
    // A provider-wide operator entry: the plan stops at its limit.
    const plan = {
      provider: "acme-coding",
      billing: "subscription",
      overage: "hard-stop",
      reason: "test coding plan that stops at its limit",
      sources: ["https://example.com/acme-terms"],
      reviewed: "2026-11-01",
    };
    const withAcme = {
      ...document,
      connections: [...document.connections, acme],
      catalog: { ...document.catalog, connections: [...document.catalog.connections, plan] },
    };
    const file = await writeConfig("generic.json", withAcme);
    const env = { ...TEST_SECRETS, TEST_ACME_KEY: "acme-key-secret-0004" };
    const run = await runCli(["check", "--config", file], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("no problems found");
    expect(run.stdout).toMatch(
      /note\s+connections\[2\]\s+acme: provider acme-coding has no connector of its own; served by the generic openai connector \(Bearer key, OpenAI errors and x-ratelimit headers\)/,
    );
    const json = JSON.parse((await runCli(["check", "--config", file, "--json"], { env })).stdout);
    expect(json).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(json.notes).toEqual([
      expect.objectContaining({ severity: "note", code: "generic_connector" }),
    ]);
    expectNoSecret(run.stdout + run.stderr);
    expect(run.stdout).not.toContain("acme-key-secret-0004");
  });

  it("plan overage that is not hard-stop is a warning: excluded from auto/subscription", async () => {
    const document = testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1");
    document.catalog.connections[0]!.overage = "meters-to-paid";
    const file = await writeConfig("overage.json", document);
    const run = await runCli(["check", "--config", file, "--json"], { env: { ...TEST_SECRETS } });
    expect(run.exitCode).toBe(0);
    const codes = JSON.parse(run.stdout).warnings.map((w: { code: string }) => w.code);
    expect(codes).toContain("overage_not_hard_stop");
  });

  it("B5 a budget on a quota rung is an error: exit 1, the path named", async () => {
    const document = testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1");
    (document.subscriptionLadder.rungBudgetUsd as Record<string, number>).subscription = 10;
    const file = await writeConfig("budget.json", document);
    const run = await runCli(["check", "--config", file, "--json"], { env: { ...TEST_SECRETS } });
    expect(run.exitCode).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.errors[0].path).toContain("rungBudgetUsd.subscription");
  });

  it("schema errors exit 1 and name the path and the allowed values", async () => {
    const file = join(tmp.path, "bad.yaml");
    await writeFile(
      file,
      [
        "connections:",
        "  - id: local",
        "    provider: ollama",
        "    authType: none",
        "    protocol: grpc",
        "    baseUrl: http://127.0.0.1:11434/v1",
        "    models: [llama]",
        "colour: blue",
        "",
      ].join("\n"),
    );
    const run = await runCli(["check", "--config", file]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/connections\[0\]\.protocol\s+must be one of "anthropic", "openai"/);
    expect(run.stdout).toContain("colour");
  });

  it("an unset client-key variable is an error: the gateway would not start", async () => {
    const file = await writeConfig(
      "keys.json",
      testConfigDocument("http://127.0.0.1:1", "http://127.0.0.1:2/v1"),
    );
    const run = await runCli(["check", "--config", file, "--json"], {
      env: { ...TEST_SECRETS, TEST_PLANFIRST_KEY: undefined },
    });
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).errors[0].message).toContain("TEST_PLANFIRST_KEY");
  });

  it("a missing --config file is a usage error (exit 2)", async () => {
    const run = await runCli(["check", "--config", join(tmp.path, "absent.yaml")]);
    expect(run.exitCode).toBe(2);
  });

  it("without --config and planfirst.yaml it checks the committed example and says so", async () => {
    const cwd = await tmp.exampleCwd();
    const run = await runCli(["check"], { cwd });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("checking planfirst.example.yaml");
  });

  it("init with flags writes a config that check accepts", async () => {
    const file = join(tmp.path, "from-init.yaml");
    const init = await runCli([
      "init",
      "--yes",
      "--file",
      file,
      "--provider",
      "claude,ollama,openrouter",
      "--storage",
      "memory",
      "--api-key-env",
      "TEST_PLANFIRST_KEY",
    ]);
    expect(init.exitCode).toBe(0);
    const run = await runCli(["check", "--config", file, "--json"], {
      env: {
        TEST_PLANFIRST_KEY: TEST_SECRETS.TEST_PLANFIRST_KEY,
        CLAUDE_CODE_OAUTH_TOKEN: undefined,
        OPENROUTER_API_KEY: undefined,
      },
    });
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.errors).toEqual([]);
    // The unset credentials are reported by name.
    const messages = doc.warnings.map((w: { message: string }) => w.message).join("\n");
    expect(messages).toContain("CLAUDE_CODE_OAUTH_TOKEN");
    expect(messages).toContain("OPENROUTER_API_KEY");
  });
});
