import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_ROOT, runCli } from "./helpers/run-cli";
import { useTempDir } from "./helpers/temp-dir";

const tmp = useTempDir("simulate");
const FIXTURES = join(CLI_ROOT, "test/fixtures/simulate");
const CLAUDE_CONFIG = join(FIXTURES, "planfirst.claude.json");

/** A home directory holding the fixture logs where Claude Code and Codex write theirs. */
async function fixtureHome(name: string): Promise<string> {
  const home = join(tmp.path, name);
  await mkdir(home, { recursive: true });
  await cp(join(FIXTURES, "claude"), join(home, ".claude"), { recursive: true });
  await cp(join(FIXTURES, "codex"), join(home, ".codex"), { recursive: true });
  return home;
}

describe("planfirst simulate", () => {
  it("finds the logs under HOME, prints the per-rung summary and the bad lines by file:line", async () => {
    const home = await fixtureHome("summary");
    const run = await runCli(
      ["simulate", "--config", CLAUDE_CONFIG, "--plan", "claude-max=1.35usd/5h"],
      { env: { HOME: home }, cwd: home },
    );
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    // 6 Claude Code requests + 4 Codex turns; the Codex turns (gpt-5.4) are routed like any
    // other request through this config's plan and rungs.
    expect(run.stdout).toContain("10 requests from 2 files");
    expect(run.stdout).toContain(
      ".claude/projects/-home-dev-shop/5f0c2a7e-1111-4c2b-9d1e-0a0b0c0d0e0f.jsonl:6  not JSON",
    );
    expect(run.stdout).toContain(
      ".codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl:8  not JSON",
    );
    expect(run.stdout).toMatch(/auto\/thrifty {2}budgets: cheap \$1\.00, premium off/);
    expect(run.stdout).not.toContain("secret prompt");
    expect(run.stdout).not.toContain("Here is the change");
  });

  it("--json carries the exact counts and spend, and --chart writes a standalone SVG", async () => {
    const chart = join(tmp.path, "thrifty.svg");
    const run = await runCli([
      "simulate",
      "--config",
      CLAUDE_CONFIG,
      "--from",
      join(FIXTURES, "claude/**/*.jsonl"),
      "--plan",
      "claude-max=1.35usd/5h",
      "--json",
      "--chart",
      chart,
    ]);
    expect(run.exitCode).toBe(0);
    const document = JSON.parse(run.stdout);
    // See src/simulate/simulation.test.ts for the arithmetic.
    expect(document.allMeteredUsd).toBe(2.7);
    const [subscription, thrifty] = document.scenarios[0].ids;
    expect(subscription).toMatchObject({
      id: "auto/subscription",
      refused: 2,
      totalWaitMs: 16_200_000,
    });
    expect(thrifty).toMatchObject({
      id: "auto/thrifty",
      servedByRung: { subscription: 4, cheap: 2, premium: 0 },
      spendUsd: 0.056,
      savingUsd: 2.644,
    });
    expect(document.badLines.map((bad: { line: number }) => bad.line)).toEqual([6, 8]);
    const svg = await readFile(chart, "utf8");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain(
      '<title id="chart-title">planfirst simulate: auto/thrifty, 6 requests</title>',
    );
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
  });

  it("--compare prints the config and each --budget side by side", async () => {
    const run = await runCli([
      "simulate",
      "--config",
      CLAUDE_CONFIG,
      "--from",
      join(FIXTURES, "claude"),
      "--plan",
      "claude-max=1.35usd/5h",
      "--budget",
      "cheap=0.03",
      "--compare",
      "--ids",
      "auto/thrifty",
    ]);
    expect(run.exitCode).toBe(0);
    const table = run.stdout.slice(run.stdout.indexOf("side by side"));
    expect(table).toMatch(/auto\/thrifty paid +2 +1\n/);
    expect(table).toMatch(/auto\/thrifty refused +0 +1\n/);
    expect(table).toMatch(/auto\/thrifty spend +\$0\.06 +\$0\.03\n/);
  });

  it("refuses to guess a plan's size: no allowance is a usage error that shows the flag to pass", async () => {
    const run = await runCli([
      "simulate",
      "--config",
      CLAUDE_CONFIG,
      "--from",
      join(FIXTURES, "trace.csv"),
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("no allowance for a plan connection");
    expect(run.stderr).toContain("--plan claude-max=AMOUNTusd/5h");
  });

  it("rejects a budget on a quota rung and a malformed plan", async () => {
    const budget = await runCli([
      "simulate",
      "--config",
      CLAUDE_CONFIG,
      "--budget",
      "subscription=5",
    ]);
    expect(budget.exitCode).toBe(2);
    expect(budget.stderr).toContain("only the paid rungs take a budget (cheap, premium)");
    const badPlan = await runCli([
      "simulate",
      "--config",
      CLAUDE_CONFIG,
      "--plan",
      "claude-max=200",
    ]);
    expect(badPlan.exitCode).toBe(2);
    expect(badPlan.stderr).toContain("claude-max=200usd/5h");
  });

  it("takes a plan's allowance from the config's planAllowances, and --plan wins over it", async () => {
    const config = JSON.parse(await readFile(CLAUDE_CONFIG, "utf8"));
    config.connections[0].planAllowances = [{ window: "5h", usd: 1.35 }];
    const configPath = join(tmp.path, "planfirst.allowances.json");
    await writeFile(configPath, JSON.stringify(config));
    const from = join(FIXTURES, "claude/**/*.jsonl");

    const run = await runCli(["simulate", "--config", configPath, "--from", from, "--json"]);
    expect(run.exitCode).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.plans[0].allowances).toEqual([
      { windowId: "5h", amount: 1.35, unit: "usd", origin: "config" },
    ]);
    // The same replay as --plan claude-max=1.35usd/5h (see the --json test above).
    expect(document.scenarios[0].ids[1]).toMatchObject({
      id: "auto/thrifty",
      servedByRung: { subscription: 4, cheap: 2, premium: 0 },
      spendUsd: 0.056,
    });

    const overridden = await runCli([
      "simulate",
      "--config",
      configPath,
      "--from",
      from,
      "--plan",
      "claude-max=100usd/5h",
      "--json",
    ]);
    const wide = JSON.parse(overridden.stdout);
    expect(wide.plans[0].allowances).toEqual([
      { windowId: "5h", amount: 100, unit: "usd", origin: "option" },
    ]);
    expect(wide.scenarios[0].ids[1].servedByRung.subscription).toBe(6);
  });
});
