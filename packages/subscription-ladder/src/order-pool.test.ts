import { describe, expect, it } from "vitest";
import type { LadderCandidate } from "./ladder-options";
import { NOW_MS, reading, testOptions } from "./ladder-test-support";
import { orderPoolByRung } from "./order-pool";

const authTypes = { max: "oauth", key: "apikey", or: "apikey", local: "none", newco: "oauth" };
const tiers = { gratis: "free", small: "cheap", big: "premium" } as const;

function candidate(provider: string, model: string, ids: string[]): LadderCandidate {
  return { provider, model, connectionId: null, allowedConnectionIds: ids };
}

describe("orderPoolByRung", () => {
  it("THR1 unknown quota is admitted by default, and refused when admitUnknownQuota is false", () => {
    const pool = [candidate("claude", "big", ["max"])];
    expect(orderPoolByRung(pool, testOptions({ authTypes, tiers }))).toBe(pool);
    expect(
      orderPoolByRung(pool, testOptions({ authTypes, tiers }, { admitUnknownQuota: false })),
    ).toEqual([]);
  });

  it("THR2 quota rungs are verified per connection; paid rungs are gated per rung by budget", () => {
    const options = testOptions(
      {
        authTypes,
        tiers,
        states: { max: reading({ status: "exhausted" }), or: reading({ remainingPercent: 90 }) },
        spendUsd: { cheap: 5, premium: 1 },
      },
      { rungBudgetUsd: { cheap: 5, premium: 10 } },
    );
    const pool = [
      candidate("claude", "big", ["max"]),
      candidate("openrouter", "small", ["or"]),
      candidate("openrouter", "big", ["or"]),
    ];
    expect(orderPoolByRung(pool, options)).toEqual([pool[2]]);
  });

  it("THR2 a paid connection whose reading shows it exhausted is out even within budget", () => {
    const options = testOptions({
      authTypes,
      tiers,
      states: { or: reading({ status: "exhausted" }) },
    });
    expect(orderPoolByRung([candidate("openrouter", "small", ["or"])], options)).toEqual([]);
  });

  it("THR3 sorts by rung and keeps the caller's order within a rung", () => {
    const options = testOptions({ authTypes, tiers });
    const pool = [
      candidate("openrouter", "big", ["or"]),
      candidate("openrouter", "small", ["or"]),
      candidate("claude", "big", ["max"]),
      candidate("openrouter", "gratis", ["or"]),
      candidate("ollama", "q", ["local"]),
      candidate("claude", "small", ["max"]),
      candidate("openrouter", "small", ["key"]),
    ];
    const out = orderPoolByRung(pool, options);
    expect(out.map((c) => pool.indexOf(c))).toEqual([2, 5, 4, 3, 1, 6, 0]);
  });

  it("THR4 a candidate spanning several rungs is split, one candidate per rung with that rung's connections", () => {
    const options = testOptions({
      authTypes: { ...authTypes, max2: "oauth", key2: "apikey" },
      tiers,
    });
    const pool = [candidate("claude", "big", ["key", "max", "key2", "max2"])];
    const out = orderPoolByRung(pool, options);
    expect(out.map((c) => c.allowedConnectionIds)).toEqual([
      ["max", "max2"],
      ["key", "key2"],
    ]);
  });

  it("THR5 the order returned is final: running the ladder again on its output changes nothing", () => {
    const options = testOptions({ authTypes: { ...authTypes, max2: "oauth" }, tiers });
    const pool = [
      candidate("openrouter", "big", ["or"]),
      candidate("claude", "small", ["key", "max", "max2"]),
    ];
    const out = orderPoolByRung(pool, options);
    expect(orderPoolByRung(out, options)).toBe(out);
  });

  it("C7 an uncurated connection is never placed on the plan rung", () => {
    const options = testOptions({ authTypes, tiers, states: { newco: reading() } });
    const pool = [candidate("newco", "big", ["newco"]), candidate("claude", "big", ["key"])];
    const out = orderPoolByRung(pool, options);
    expect(out).toBe(pool); // both premium: order kept
  });

  it("B2 a budget of 0 removes the whole rung, whatever the caller's order", () => {
    const options = testOptions({ authTypes, tiers }, { rungBudgetUsd: { premium: 0 } });
    const pool = [candidate("openrouter", "big", ["or"]), candidate("openrouter", "small", ["or"])];
    expect(orderPoolByRung(pool, options)).toEqual([pool[1]]);
  });

  it("S5 nothing sticky: when the plan resets, the next build puts it first again", () => {
    const exhaustedUntil = new Date(NOW_MS + 60_000).toISOString();
    const states = {
      max: reading({
        status: "exhausted",
        remainingPercent: 0,
        resetAt: exhaustedUntil,
        hasBeenExhausted: true,
      }),
    };
    const pool = [candidate("claude", "big", ["max", "key"])];
    const before = orderPoolByRung(pool, testOptions({ authTypes, tiers, states }));
    expect(before.map((c) => c.allowedConnectionIds)).toEqual([["key"]]);
    const after = orderPoolByRung(
      pool,
      testOptions({ authTypes, tiers, states }, { now: () => NOW_MS + 60_000 }),
    );
    expect(after.map((c) => c.allowedConnectionIds)).toEqual([["max"], ["key"]]);
  });

  it("resolves each paid rung's spend at most once per build", () => {
    const calls: string[] = [];
    const options = testOptions(
      { authTypes, tiers },
      {
        rungBudgetUsd: { cheap: 5, premium: 5 },
        resolveRungSpendUsd: (rung) => {
          calls.push(rung);
          return 0;
        },
      },
    );
    const pool = Array.from({ length: 20 }, (_, i) =>
      candidate("openrouter", i % 2 ? "small" : "big", ["or", "key"]),
    );
    expect(orderPoolByRung(pool, options)).toHaveLength(20);
    expect(calls.sort()).toEqual(["cheap", "premium"]);
  });
});
