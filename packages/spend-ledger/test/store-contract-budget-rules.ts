import { expect, it, vi } from "vitest";
import { admitted, type ContractSetup, reserveArgs, usage } from "./store-contract-harness";

/**
 * The contract's cases of the budget rules B1–B4 and B6 (ladder.md §7), one store and two ledgers.
 */
export function budgetRulesContract(setup: ContractSetup): void {
  it("B6 admits while spent + reserved + maxCost ≤ budget and refuses past it", async () => {
    const { ledger } = await setup();
    await admitted(ledger, "cheap", 0.6);
    await admitted(ledger, "cheap", 0.4);
    const refused = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.000001,
      requestId: "one-micro-too-many",
    });
    expect(refused).toEqual({
      refused: true,
      reason: "budget_exhausted",
      spentUsd: 0,
      reservedUsd: 1,
      budgetUsd: 1,
    });
    expect(ledger.reservedUsd("cheap")).toBe(1);
  });

  it("B1 a rung without a budget is always admitted and still tracked", async () => {
    const { ledger } = await setup();
    const big = await admitted(ledger, "free-for-all", 5000);
    expect(ledger.reservedUsd("free-for-all")).toBe(5000);
    expect(ledger.budgetUsd("free-for-all")).toBeUndefined();
    expect(ledger.isExhausted("free-for-all")).toBe(false);
    await ledger.settle(big, 4321.5, usage);
    expect(ledger.spentUsd("free-for-all")).toBe(4321.5);
    expect(ledger.isExhausted("free-for-all")).toBe(false);
  });

  it("B2 a budget ≤ 0 refuses every reservation", async () => {
    const { ledger } = await setup({ budgetsUsd: { premium: 0, cheap: -3 } });
    for (const rung of ["premium", "cheap"]) {
      const result = await ledger.reserve({ ...reserveArgs, rung, maxCostUsd: 0 });
      expect(result).toEqual({
        refused: true,
        reason: "budget_disabled",
        spentUsd: 0,
        reservedUsd: 0,
        budgetUsd: 0,
      });
      expect(ledger.isExhausted(rung)).toBe(true);
    }
  });

  it("B3 the spend read is a number once the store is ready (null means not gated)", async () => {
    const { ledger } = await setup();
    expect(ledger.rungSpendUsd("cheap")).toBe(0);
    await admitted(ledger, "cheap", 0.2);
    expect(ledger.rungSpendUsd("cheap")).toBe(0.2);
  });

  it("B4 exhausted exactly when spent + reserved ≥ budget", async () => {
    const { ledger } = await setup();
    const first = await admitted(ledger, "cheap", 0.5);
    await ledger.settle(first, 0.5, usage);
    const second = await admitted(ledger, "cheap", 0.499999);
    expect(ledger.isExhausted("cheap")).toBe(false);
    expect(ledger.rungSpendUsd("cheap")).toBe(0.999999);
    await ledger.settle(second, 0.499999, usage);
    const last = await admitted(ledger, "cheap", 0.000001);
    expect(ledger.isExhausted("cheap")).toBe(true);
    await ledger.release(last);
    expect(ledger.isExhausted("cheap")).toBe(false);
  });

  it("two ledgers on one store share one budget and see each other's spend", async () => {
    const { ledger, openPeerLedger } = await setup();
    const peerLedger = await openPeerLedger();
    const mine = await admitted(ledger, "cheap", 0.6);
    const refused = await peerLedger.reserve({ ...reserveArgs, maxCostUsd: 0.5 });
    expect(refused).toMatchObject({ refused: true, reservedUsd: 0.6 });
    await admitted(peerLedger, "cheap", 0.4);
    await ledger.settle(mine, 0.55, usage);
    await vi.waitFor(() => expect(peerLedger.spentUsd("cheap")).toBe(0.55), { timeout: 2000 });
    await vi.waitFor(() => expect(peerLedger.reservedUsd("cheap")).toBe(0.4), { timeout: 2000 });
    expect((await peerLedger.settle(mine, 0.55, usage)).booked).toBe(false);
    expect(await peerLedger.records()).toHaveLength(1);
  });
}
