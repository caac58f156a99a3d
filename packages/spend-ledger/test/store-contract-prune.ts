import { expect, it } from "vitest";
import {
  admitted,
  type ContractSetup,
  dayStartMs,
  minuteMs,
  reserveArgs,
  usage,
} from "./store-contract-harness";

/** The contract's prune cases: history goes, the books stay. */
export function pruneContract(setup: ContractSetup): void {
  it("prune forgets the records before the cutoff's minute, never what the ledger admits against", async () => {
    const { store, ledger, advance } = await setup({ budgetsUsd: { cheap: 1 } });
    for (let minute = 0; minute < 4; minute++) {
      const reservation = await admitted(ledger, "cheap", 0.1);
      await ledger.settle(reservation, 0.1, usage);
      advance(minuteMs);
    }
    const live = await admitted(ledger, "cheap", 0.2);

    // Halfway through the third minute: the first two minutes go, the third stays whole.
    const cutoff = dayStartMs + 2 * minuteMs + 30_000;
    expect((await store.prune!(cutoff)).records).toBe(2);
    const left = await ledger.records();
    expect(left.map((record) => Date.parse(record.time))).toEqual([
      dayStartMs + 2 * minuteMs,
      dayStartMs + 3 * minuteMs,
    ]);
    expect((await ledger.summary()).total).toMatchObject({ requests: 2, costMicroUsd: 200_000 });

    // The window still counts every settle and the live reservation: 0.4 spent, 0.2 held.
    expect(ledger.spentUsd("cheap")).toBeCloseTo(0.4, 9);
    expect(ledger.reservedUsd("cheap")).toBeCloseTo(0.2, 9);
    const over = await ledger.reserve({ ...reserveArgs, maxCostUsd: 0.5 });
    expect(over).toMatchObject({ refused: true, reason: "budget_exhausted" });
    expect(await admitted(ledger, "cheap", 0.4)).toBeDefined();
    expect((await ledger.settle(live, 0.2, usage)).booked).toBe(true);

    // Nothing is left to forget.
    expect((await store.prune!(cutoff)).records).toBe(0);
    expect(await ledger.records()).toHaveLength(3);
  });
}
