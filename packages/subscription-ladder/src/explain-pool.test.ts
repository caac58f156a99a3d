import { describe, expect, it } from "vitest";
import { explainPool } from "./explain-pool";
import type { LadderCandidate } from "./ladder-options";
import { at, reading, testOptions } from "./ladder-test-support";

const authTypes = { max: "oauth", max2: "oauth", key: "apikey", copilot: "oauth", local: "none" };
const tiers = { "claude-sonnet-4-5": "premium", small: "cheap" } as const;
const pool: LadderCandidate[] = [
  {
    provider: "claude",
    model: "claude-sonnet-4-5",
    connectionId: null,
    allowedConnectionIds: ["max", "max2", "key"],
  },
  {
    provider: "github-copilot",
    model: "gpt-5",
    connectionId: null,
    allowedConnectionIds: ["copilot"],
  },
  { provider: "ollama", model: "qwen2.5-coder:7b", connectionId: "local" },
  { provider: "openrouter", model: "small", connectionId: null, allowedConnectionIds: ["key"] },
];
const states = {
  max: reading({ remainingPercent: 40, resetAt: at(7_200_000) }),
  max2: reading({
    status: "exhausted",
    remainingPercent: 0,
    resetAt: at(1_800_000),
    hasBeenExhausted: true,
  }),
  copilot: reading({ remainingPercent: 80 }),
};
const options = testOptions(
  { authTypes, states, tiers, spendUsd: { cheap: 1.25, premium: 0 } },
  { rungBudgetUsd: { cheap: 5, premium: 0 } },
);

describe("explainPool", () => {
  it("SUB2 explains every candidate and connection of auto/subscription with a reason", () => {
    const explanation = explainPool(pool, options, "subscription");
    expect(explanation).toMatchObject({
      autoId: "auto/subscription",
      grouping: "subscription",
      evaluatedAt: at(0),
      settings: {
        admitUnknownQuota: false,
        exitCutoffPercent: 2,
        reentryMinRemainingPercent: 5,
        maxStateAgeMs: 180_000,
      },
      earliestPlanResetAt: at(1_800_000),
    });
    const [claude, copilot, local, openrouter] = explanation.candidates;
    expect(claude!.connections.map((c) => [c.connectionId, c.rung, c.verdict, c.rule])).toEqual([
      ["max", "subscription", "in", "SUB2"],
      ["max2", "subscription", "out", "Q2"],
      ["key", "premium", "out", "SUB2"],
    ]);
    expect(claude!.connections[0]).toMatchObject({
      billing: "subscription",
      overage: "hard-stop",
      matchedBy: "C3",
      tier: null,
      budget: null,
      quota: {
        present: true,
        status: "available",
        remainingPercent: 40,
        stale: false,
        usable: true,
        rule: "Q6",
        thresholdPercent: 2,
      },
    });
    expect(claude!.connections[2]).toMatchObject({
      billing: "metered",
      matchedBy: "C4",
      tier: "premium",
    });
    expect(claude!.reason).toBe("1 of 3 connections passed");
    expect(copilot!.connections[0]!.reason).toBe(
      "overage unknown: excluded from auto/subscription (SUB2)",
    );
    expect(local!.connections[0]!.reason).toBe(
      "keyless is not a plan subscription: excluded from auto/subscription (SUB2)",
    );
    expect(openrouter!.verdict).toBe("out");
    expect(openrouter!.reason).toBe("no connection passed: dropped (SUB4)");
    expect(explanation.result).toEqual([
      {
        candidatePosition: 0,
        provider: "claude",
        model: "claude-sonnet-4-5",
        rung: "subscription",
        connectionId: null,
        allowedConnectionIds: ["max"],
      },
    ]);
  });

  it("SUB1/P1 an unverified hard-stop plan is out of the pool and explained as probeable only", () => {
    const explanation = explainPool(
      pool.slice(0, 1),
      testOptions({ authTypes, tiers }),
      "subscription",
    );
    expect(explanation.result).toEqual([]);
    expect(explanation.candidates[0]!.connections[0]).toMatchObject({
      verdict: "out",
      rule: "P1",
      probeable: true,
      quota: { present: false, status: null, usable: false, rule: "Q1" },
    });
    expect(explanation.candidates[0]!.connections[0]!.reason).toMatch(
      /admitted only as a probe, one at a time \(SUB1, P1\)/,
    );
    // max and max2 are Claude plans with no reading; the API key is metered, never probed (P5).
    expect(explanation.probeable).toEqual([
      { candidatePosition: 0, connectionId: "max" },
      { candidatePosition: 0, connectionId: "max2" },
    ]);
    expect(explanation.earliestPlanResetAt).toBeNull();
  });

  it("SUB1 an unverified plan whose live evidence says it bills is never admitted, not even as a probe", () => {
    const explanation = explainPool(
      pool.slice(0, 1),
      testOptions(
        { authTypes, tiers },
        {
          resolveOverageEvidence: () => ({
            evidence: "on",
            observedAt: at(-1_000),
            source: "claude-money-refusal",
          }),
        },
      ),
      "subscription",
    );
    const connection = explanation.candidates[0]!.connections[0]!;
    expect(connection).toMatchObject({
      connectionId: "max",
      verdict: "out",
      rule: "E3",
      probeable: false,
      overage: "meters-to-paid",
      catalogOverage: "hard-stop",
      overageEvidence: { basis: "evidence-on", evidence: "on", source: "claude-money-refusal" },
    });
    expect(connection.reason).toMatch(/bills past its plan.*excluded from auto\/subscription/);
    expect(explanation.probeable).toEqual([]);
  });

  it("THR4 explains auto/thrifty with budgets for paid rungs and the split, in dispatch order", () => {
    const explanation = explainPool(pool, options, "thrifty");
    expect(explanation.budgets).toEqual([
      {
        rung: "cheap",
        limitUsd: 5,
        spentUsd: 1.25,
        exhausted: false,
        rule: "B4",
        reason: "cheap within budget: $1.25 of $5.00 (B4)",
      },
      {
        rung: "premium",
        limitUsd: 0,
        spentUsd: 0,
        exhausted: true,
        rule: "B2",
        reason: "premium rung disabled by a budget of $0.00 (B2)",
      },
    ]);
    const key = explanation.candidates[0]!.connections[2]!;
    expect(key).toMatchObject({
      rung: "premium",
      verdict: "out",
      rule: "B2",
      budget: { rung: "premium", limitUsd: 0, exhausted: true },
    });
    expect(key.reason).toBe(
      "premium rung disabled by a budget of $0.00 (B2): excluded from auto/thrifty",
    );
    const max2 = explanation.candidates[0]!.connections[1]!;
    expect(max2.reason).toBe("quota exhausted (Q2): excluded from auto/thrifty");
    const local = explanation.candidates[2]!.connections[0]!;
    expect(local).toMatchObject({ rung: "keyless", verdict: "in", rule: "THR1" });
    expect(local.reason).toBe("no quota reading (Q1): admitted (THR1)");
    expect(explanation.candidates[3]!.connections[0]!.reason).toBe(
      "cheap within budget: $1.25 of $5.00 (B4)",
    );
    expect(
      explanation.result.map((t) => [
        t.candidatePosition,
        t.rung,
        t.allowedConnectionIds ?? t.connectionId,
      ]),
    ).toEqual([
      [0, "subscription", ["max"]],
      [1, "subscription", ["copilot"]],
      [2, "keyless", "local"],
      [3, "cheap", ["key"]],
    ]);
  });

  it("H2 explains a latched connection against the re-entry floor", () => {
    const latched = testOptions({
      authTypes,
      states: { max: reading({ remainingPercent: 4, hasBeenExhausted: true }) },
    });
    const explanation = explainPool(pool.slice(0, 1), latched, "thrifty");
    const max = explanation.candidates[0]!.connections[0]!;
    expect(max).toMatchObject({
      verdict: "out",
      rule: "H2",
      quota: { thresholdPercent: 5, hasBeenExhausted: true },
    });
    expect(max.reason).toBe(
      "remaining 4% ≤ re-entry floor 5% since exhaustion (H2): excluded from auto/thrifty",
    );
  });

  it("S2 marks a reading whose reset has passed as stale", () => {
    const passed = testOptions({
      authTypes,
      states: { max: reading({ status: "exhausted", resetAt: at(-1) }) },
    });
    const max = explainPool(pool.slice(0, 1), passed, "thrifty").candidates[0]!.connections[0]!;
    expect(max).toMatchObject({ verdict: "in", quota: { stale: true, rule: "S2" } });
  });

  it("is JSON-safe and carries only what the pool and resolvers gave it", () => {
    const explanation = explainPool(pool, options, "thrifty");
    expect(JSON.parse(JSON.stringify(explanation))).toEqual(explanation);
    const secretish = explainPool(
      [
        {
          provider: "claude",
          model: "m",
          connectionId: null,
          allowedConnectionIds: ["max"],
          credential: "sk-ant-secret",
        } as LadderCandidate,
      ],
      options,
      "thrifty",
    );
    expect(JSON.stringify(secretish)).not.toContain("sk-ant-secret");
  });

  it("THR2 an empty pool explains to an empty result", () => {
    expect(explainPool([], options, "subscription")).toMatchObject({ candidates: [], result: [] });
  });
});
