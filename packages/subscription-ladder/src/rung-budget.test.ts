import { describe, expect, it } from "vitest";
import { testOptions } from "./ladder-test-support";
import { orderPoolByRung } from "./order-pool";
import { isRungBudgetExhausted, readRungBudget, validateRungBudgets } from "./rung-budget";

const spend = (cheap: number | null, premium: number | null = null) => ({
  resolveRungSpendUsd: (rung: "cheap" | "premium") => (rung === "cheap" ? cheap : premium),
});

describe("rung budgets", () => {
  it("B1 a rung without a budget is never budget-exhausted", () => {
    expect(isRungBudgetExhausted("cheap", { ...spend(1e9) })).toBe(false);
    expect(
      isRungBudgetExhausted("premium", { rungBudgetUsd: { cheap: 5 }, ...spend(0, 1e9) }),
    ).toBe(false);
  });

  it("B2 a budget of 0 or less disables the rung outright", () => {
    expect(isRungBudgetExhausted("premium", { rungBudgetUsd: { premium: 0 } })).toBe(true);
    expect(isRungBudgetExhausted("cheap", { rungBudgetUsd: { cheap: -1 }, ...spend(0) })).toBe(
      true,
    );
    expect(readRungBudget("cheap", { rungBudgetUsd: { cheap: Number.NaN } })).toMatchObject({
      exhausted: true,
      rule: "B2",
    });
  });

  it("B3 without spend accounting a budgeted rung is not gated", () => {
    expect(isRungBudgetExhausted("cheap", { rungBudgetUsd: { cheap: 5 } })).toBe(false);
    expect(readRungBudget("cheap", { rungBudgetUsd: { cheap: 5 }, ...spend(null) })).toMatchObject({
      exhausted: false,
      rule: "B3",
    });
  });

  it("B4 exhausted exactly when spent plus reserved reaches the budget", () => {
    const options = (spent: number) => ({ rungBudgetUsd: { cheap: 5 }, ...spend(spent) });
    expect(isRungBudgetExhausted("cheap", options(4.99))).toBe(false);
    expect(isRungBudgetExhausted("cheap", options(5))).toBe(true);
    expect(isRungBudgetExhausted("cheap", options(7))).toBe(true);
    expect(isRungBudgetExhausted("cheap", options(Number.NaN))).toBe(true);
    expect(readRungBudget("cheap", options(1.5))).toEqual({
      rung: "cheap",
      limitUsd: 5,
      spentUsd: 1.5,
      exhausted: false,
      rule: "B4",
    });
  });

  it("B4 quota rungs have no budget and are never budget-exhausted", () => {
    for (const rung of ["subscription", "keyless", "free"] as const) {
      expect(isRungBudgetExhausted(rung, { rungBudgetUsd: { cheap: 0, premium: 0 } })).toBe(false);
    }
  });

  it("B5 budgets on quota rungs are rejected by validation, naming the path and the allowed rungs", () => {
    expect(validateRungBudgets({ cheap: 5, premium: 0 })).toEqual([]);
    expect(validateRungBudgets(undefined)).toEqual([]);
    const problems = validateRungBudgets({ subscription: 1, keyless: 0, free: 2, cheap: 5 });
    expect(problems.map((p) => p.path)).toEqual([
      "rungBudgetUsd.subscription",
      "rungBudgetUsd.keyless",
      "rungBudgetUsd.free",
    ]);
    for (const problem of problems) {
      expect(problem.allowed).toBe("cheap, premium");
      expect(problem.message).toMatch(/quota rung.*B5/);
    }
  });

  it("B5 unknown rungs, non-numbers, infinities and negatives are problems too", () => {
    const problems = validateRungBudgets({
      gold: 1,
      cheap: "5",
      premium: Number.POSITIVE_INFINITY,
    });
    expect(problems.map((p) => p.path)).toEqual([
      "rungBudgetUsd.gold",
      "rungBudgetUsd.cheap",
      "rungBudgetUsd.premium",
    ]);
    expect(validateRungBudgets({ premium: -2 })[0]?.message).toMatch(/negative/);
    expect(validateRungBudgets([1, 2])[0]?.path).toBe("rungBudgetUsd");
  });

  it("B6 reserved spend counts: a reservation that fills the budget gates the rung for the next build", () => {
    let spentUsd = 3;
    let reservedUsd = 0;
    const options = testOptions(
      { authTypes: { key: "apikey" }, tiers: { small: "cheap" } },
      { rungBudgetUsd: { cheap: 5 }, resolveRungSpendUsd: () => spentUsd + reservedUsd },
    );
    const pool = [{ provider: "openrouter", model: "small", connectionId: "key" }];
    expect(orderPoolByRung(pool, options)).toHaveLength(1);
    reservedUsd = 2; // an in-flight request's worst case
    expect(orderPoolByRung(pool, options)).toEqual([]);
    reservedUsd = 0;
    spentUsd = 4.2; // settled below the reservation
    expect(orderPoolByRung(pool, options)).toHaveLength(1);
  });
});
