import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlanAllowances } from "./plan-allowance";
import { readTrace } from "./read-trace";
import { simulate } from "./simulation";
import { fixtureSetup, SIMULATE_FIXTURES } from "./simulation-test-support";
import { summarizeSimulation } from "./summary-document";

const CLAUDE_LOG = join(
  SIMULATE_FIXTURES,
  "claude/projects/-home-dev-shop/5f0c2a7e-1111-4c2b-9d1e-0a0b0c0d0e0f.jsonl",
);
const CODEX_LOG = join(
  SIMULATE_FIXTURES,
  "codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
);

function plan(value: string) {
  const parsed = parsePlanAllowances(value);
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  return parsed.allowances;
}

async function runClaude(options: { plan: string; budgets?: Record<string, number>[] }) {
  const { config, table } = fixtureSetup("claude");
  const trace = await readTrace([CLAUDE_LOG]);
  const result = await simulate({
    config,
    table,
    trace,
    ids: ["auto/subscription", "auto/thrifty"],
    allowances: plan(options.plan),
    scenarios: (options.budgets ?? [{}]).map((rungBudgetUsd, index) => ({
      label: `s${index}`,
      rungBudgetUsd,
    })),
  });
  return summarizeSimulation(result);
}

// Arithmetic of the Claude fixture. Six requests on 2026-11-02, each 100,000 input and 10,000
// output tokens of claude-sonnet-4-5 ($3 in, $15 out per M): 0.3 + 0.15 = $0.45 metered each,
// $2.70 for all six. The same request on the cheap rung (openrouter qwen/qwen3-coder, $0.2 in,
// $0.8 out): 0.02 + 0.008 = $0.028. Plan: $1.35 per 5 h window = three requests.
//   09:00, 09:10, 09:20 → plan (window opens 09:00, resets 14:00; after the third, 0 % left)
//   09:30, 09:40        → thrifty: cheap ($0.028 each); subscription: refused until 14:00
//   14:30               → the window reset at 14:00: plan again
describe("simulate on the Claude Code fixture", () => {
  it("serves, refuses and spends exactly what the hand computation says", async () => {
    const summary = await runClaude({ plan: "claude-max=1.35usd/5h" });
    expect(summary.requests).toBe(6);
    expect(summary.allMeteredUsd).toBe(2.7);
    const [subscription, thrifty] = summary.scenarios[0]!.ids;

    expect(subscription!.servedByRung).toEqual({
      subscription: 4,
      keyless: 0,
      free: 0,
      cheap: 0,
      premium: 0,
    });
    expect(subscription!.refused).toBe(2);
    // Refused at 09:30 and 09:40, both waiting for the 14:00 reset: 4 h 30 m, counted once.
    expect(subscription!.totalWaitMs).toBe(4.5 * 3_600_000);
    expect(subscription!.spendUsd).toBe(0);
    // Four served requests × $0.45.
    expect(subscription!.servedMeteredUsd).toBe(1.8);

    expect(thrifty!.servedByRung).toEqual({
      subscription: 4,
      keyless: 0,
      free: 0,
      cheap: 2,
      premium: 0,
    });
    expect(thrifty!.refused).toBe(0);
    expect(thrifty!.spendByRungUsd.cheap).toBe(0.056);
    expect(thrifty!.spendUsd).toBe(0.056);
    // $2.70 − $0.056.
    expect(thrifty!.savingUsd).toBe(2.644);
  });

  it("runs the plan window out mid-trace and resets it", async () => {
    const summary = await runClaude({ plan: "claude-max=1.35usd/5h" });
    const window = summary.scenarios[0]!.ids[1]!.windows[0]!;
    expect(window).toMatchObject({
      connectionId: "claude-max",
      windowId: "5h",
      allowance: 1.35,
      unit: "usd",
      origin: "option",
      exhaustedAt: ["2026-11-02T09:20:00.000Z"],
      resetAt: ["2026-11-02T14:00:00.000Z"],
      peakUsedPercent: 100,
    });
    expect(summary.plans[0]!.windowsWithoutAllowance).toEqual(["7d"]);
  });

  it("stops a paid rung at its budget and never spends past it", async () => {
    // cheap $0.03: the first cheap request reserves $0.028 (fits), the second would make $0.056
    // (> $0.03) and is refused; premium 0 is disabled, so the request is refused outright.
    const summary = await runClaude({
      plan: "claude-max=1.35usd/5h",
      budgets: [{}, { cheap: 0.03 }, { cheap: 0, premium: 1 }],
    });
    const tight = summary.scenarios[1]!.ids[1]!;
    expect(tight.servedByRung).toMatchObject({ subscription: 4, cheap: 1, premium: 0 });
    expect(tight.refused).toBe(1);
    expect(tight.spendUsd).toBe(0.028);
    // Cheap off, premium $1: the two overflow requests go to anthropic-api at the full
    // $0.45 each = $0.90, within $1.
    const premium = summary.scenarios[2]!.ids[1]!;
    expect(premium.servedByRung).toMatchObject({ subscription: 4, cheap: 0, premium: 2 });
    expect(premium.spendByRungUsd.premium).toBe(0.9);
  });

  it("counts token allowances in input + output tokens", async () => {
    // 330,000 tokens per window = three requests of 110,000: the same outcome as $1.35.
    const summary = await runClaude({ plan: "claude-max=330ktok/5h" });
    expect(summary.scenarios[0]!.ids[1]!.servedByRung).toMatchObject({ subscription: 4, cheap: 2 });
  });

  it("is deterministic", async () => {
    const first = await runClaude({ plan: "claude-max=1.35usd/5h" });
    const second = await runClaude({ plan: "claude-max=1.35usd/5h" });
    expect(second).toEqual(first);
  });
});

describe("simulate on the Codex fixture", () => {
  it("calibrates the plan from Codex's rate-limit readings and says so", async () => {
    const { config, table } = fixtureSetup("codex");
    const trace = await readTrace([CODEX_LOG]);
    const result = await simulate({
      config,
      table,
      trace,
      ids: ["auto/subscription"],
      allowances: [],
      scenarios: [{ label: "config" }],
    });
    const summary = summarizeSimulation(result);
    expect(summary.calibrations).toEqual([
      { target: "codex-plus", windowId: "5h", amountUsd: 5, readings: 5 },
      { target: "codex-plus", windowId: "7d", amountUsd: 20, readings: 4 },
    ]);
    // Four turns at $0.575 = $2.30 of a $5 window: all on the plan, 46 % used.
    const replay = summary.scenarios[0]!.ids[0]!;
    expect(replay.servedByRung.subscription).toBe(4);
    expect(
      replay.windows.map((window) => [window.windowId, window.origin, window.peakUsedPercent]),
    ).toEqual([
      ["5h", "calibrated", 46],
      ["7d", "calibrated", 11.5],
    ]);
  });

  it("lets an explicit --plan win over the calibration for that window", async () => {
    const { config, table } = fixtureSetup("codex");
    const trace = await readTrace([CODEX_LOG]);
    const result = await simulate({
      config,
      table,
      trace,
      ids: ["auto/subscription", "auto/thrifty"],
      allowances: plan("codex-plus=1usd/5h"),
      scenarios: [{ label: "config" }],
    });
    const [subscription, thrifty] = summarizeSimulation(result).scenarios[0]!.ids;
    // $1 per 5 h: the first turn leaves 42.5 %, the second takes it past 0; the last two are
    // refused on auto/subscription and go to gpt-5.4-mini (cheap, $0.75 in / $0.075 cached /
    // $4.5 out per M) on auto/thrifty: 0.075 + 0.0075 + 0.09 = $0.1725 each, $0.345 in all.
    expect(subscription!.servedByRung.subscription).toBe(2);
    expect(subscription!.refused).toBe(2);
    expect(thrifty!.servedByRung).toMatchObject({ subscription: 2, cheap: 2 });
    expect(thrifty!.spendUsd).toBe(0.345);
  });
});
