import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("init");

describe("planfirst init", () => {
  it("with flags writes a commented config with the chosen connections and budgets", async () => {
    const file = join(tmp.path, "flags.yaml");
    const run = await runCli([
      "init",
      "--file",
      file,
      "--provider",
      "claude,ollama",
      "--provider",
      "openrouter",
      "--port",
      "4242",
      "--cheap-budget",
      "3.5",
      "--premium-budget",
      "0",
      "--budget-window",
      "week",
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("CLAUDE_CODE_OAUTH_TOKEN");
    const text = await readFile(file, "utf8");
    expect(text).toMatch(/^# /m);
    const config = parseYaml(text);
    expect(config.server).toMatchObject({ host: "127.0.0.1", port: 4242, apiKeys: [] });
    expect(config.connections.map((c: { provider: string }) => c.provider)).toEqual([
      "claude",
      "ollama",
      "openrouter",
    ]);
    expect(config.connections[0].credential).toBe("env:CLAUDE_CODE_OAUTH_TOKEN");
    expect(config.connections[1]).not.toHaveProperty("credential");
    expect(config.subscriptionLadder).toMatchObject({
      rungBudgetUsd: { cheap: 3.5, premium: 0 },
      budgetWindow: "week",
    });
  });

  it("refuses to overwrite an existing file without --force (exit 1), and overwrites with it", async () => {
    const file = join(tmp.path, "existing.yaml");
    await writeFile(file, "# mine\n");
    const refused = await runCli(["init", "--yes", "--file", file]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("--force");
    expect(await readFile(file, "utf8")).toBe("# mine\n");

    const forced = await runCli(["init", "--yes", "--force", "--file", file]);
    expect(forced.exitCode).toBe(0);
    expect(await readFile(file, "utf8")).toContain("connections:");
  });

  it("a provider without a preset is a usage error naming the allowed ones (exit 2)", async () => {
    const run = await runCli([
      "init",
      "--yes",
      "--file",
      join(tmp.path, "x.yaml"),
      "--provider",
      "cursor",
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("allowed: claude");
  });

  it("a bad flag value is a usage error (exit 2)", async () => {
    const run = await runCli([
      "init",
      "--yes",
      "--file",
      join(tmp.path, "y.yaml"),
      "--port",
      "http",
    ]);
    expect(run.exitCode).toBe(2);
  });
});
