import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { catalogMeta, connectionBillingCatalog, modelPrices } from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("catalog");

describe("planfirst catalog show", () => {
  it("--json prints the bundled catalog with its version and data date", async () => {
    const run = await runCli(["catalog", "show", "--json"]);
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.catalog).toEqual({ version: catalogMeta.version, dataDate: catalogMeta.dataDate });
    expect(doc.connections).toHaveLength(connectionBillingCatalog.length);
    expect(doc.models).toHaveLength(modelPrices.length);
  });

  it("PROVIDER narrows the listing to that provider, case-insensitively", async () => {
    const provider = modelPrices[0]!.provider;
    const run = await runCli(["catalog", "show", provider.toUpperCase(), "--json"]);
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.models.length).toBeGreaterThan(0);
    for (const entry of [...doc.connections, ...doc.models]) expect(entry.provider).toBe(provider);
  });

  it("the table names the data date and the models, without colour when stdout is not a terminal", async () => {
    const run = await runCli(["catalog", "show"], { env: { NO_COLOR: undefined } });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`data date ${catalogMeta.dataDate}`);
    expect(run.stdout).toContain(modelPrices[0]!.model);
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("an uncurated provider exits 1 and says it is treated as metered (C7)", async () => {
    const run = await runCli(["catalog", "show", "no-such-provider"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("treated as metered");
  });
});

describe("planfirst catalog validate", () => {
  it("a valid operator file (YAML, one section, $schema) exits 0", async () => {
    const file = join(tmp.path, "ok.yaml");
    await writeFile(
      file,
      [
        "$schema: ./schema.json",
        "models:",
        "  - { provider: openrouter, model: qwen/qwen3-coder, inputPerMTok: 0.2, outputPerMTok: 0.8 }",
        "",
      ].join("\n"),
    );
    const run = await runCli(["catalog", "validate", file, "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, models: 1, problems: [] });
  });

  it("a bad file exits 1 and names the path of every problem", async () => {
    const file = join(tmp.path, "bad.json");
    await writeFile(
      file,
      JSON.stringify({
        connections: [
          {
            provider: "claude",
            authType: "oauth",
            billing: "flat-rate",
            overage: "hard-stop",
            reason: "plan",
            sources: ["https://example.com/terms"],
            reviewed: "2026-01-01",
          },
        ],
        models: [{ provider: "openrouter", model: "x", inputPerMTok: -1, outputPerMTok: 1 }],
      }),
    );
    const run = await runCli(["catalog", "validate", file, "--json"]);
    expect(run.exitCode).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.ok).toBe(false);
    const paths = doc.problems.map((problem: { path: string }) => problem.path);
    expect(paths).toContain("connections[0].billing");
    expect(paths).toContain("models[0].inputPerMTok");
    const billing = doc.problems.find((p: { path: string }) => p.path === "connections[0].billing");
    expect(billing.message).toContain("subscription");

    const human = await runCli(["catalog", "validate", file]);
    expect(human.exitCode).toBe(1);
    expect(human.stdout).toContain("connections[0].billing");
  });

  it("a file that is not YAML exits 1 with its line", async () => {
    const file = join(tmp.path, "broken.yaml");
    await writeFile(file, "models: [\n");
    const run = await runCli(["catalog", "validate", file]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/line \d+, column \d+: not valid YAML/);
  });

  it("a missing file is a usage error (exit 2)", async () => {
    const run = await runCli(["catalog", "validate", join(tmp.path, "absent.yaml")]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("no such file");
  });
});
