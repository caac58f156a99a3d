import { expect, it } from "vitest";
import {
  admitted,
  type ContractSetup,
  isReservation,
  minuteMs,
  reserveArgs,
  usage,
} from "./store-contract-harness";

/**
 * The contract's budget scope cases: a request held, settled and refused against a scope besides
 * its rung.
 */
export function budgetScopesContract(setup: ContractSetup): void {
  const alice = { scope: "key:alice", budgetUsd: 0.5 };
  const scoped = (maxCostUsd: number, requestId: string, scopes = [alice]) => ({
    ...reserveArgs,
    maxCostUsd,
    requestId,
    scopes,
  });

  it("a scoped reservation holds its amount in the scope and the rung; settle books both with one record", async () => {
    const { ledger } = await setup();
    const reservation = await ledger.reserve(scoped(0.3, "req-scoped"));
    if (!isReservation(reservation)) throw new Error("refused");
    expect(reservation.scopes).toEqual([
      { scope: "key:alice", windowKey: "day:2026-11-30", id: `${reservation.id}:s0` },
    ]);
    expect(ledger.reservedUsd("key:alice")).toBe(0.3);
    expect(ledger.reservedUsd("cheap")).toBe(0.3);
    const settled = await ledger.settle(reservation, 0.2, { ...usage, clientKeyId: "alice" });
    expect(settled.booked).toBe(true);
    expect(ledger.spentUsd("key:alice")).toBe(0.2);
    expect(ledger.spentUsd("cheap")).toBe(0.2);
    expect(ledger.reservedUsd("key:alice")).toBe(0);
    expect(ledger.reservedUsd("cheap")).toBe(0);
    const again = await ledger.settle(reservation, 0.2, usage);
    expect(again.booked).toBe(false);
    expect(ledger.spentUsd("key:alice")).toBe(0.2);
    expect(ledger.spentUsd("cheap")).toBe(0.2);
    const records = await ledger.records();
    expect(records.map((record) => [record.rung, record.costMicroUsd])).toEqual([
      ["cheap", 200_000],
    ]);
  });

  it("a scope over its budget refuses, naming it, and holds nothing of the rung", async () => {
    const { ledger } = await setup();
    const first = await ledger.reserve(scoped(0.4, "alice-1"));
    expect(isReservation(first)).toBe(true);
    expect(await ledger.reserve(scoped(0.2, "alice-2"))).toEqual({
      refused: true,
      reason: "budget_exhausted",
      spentUsd: 0,
      reservedUsd: 0.4,
      budgetUsd: 0.5,
      scope: "key:alice",
    });
    expect(ledger.reservedUsd("cheap")).toBe(0.4);
    expect(ledger.isScopeExhausted(alice)).toBe(false);
    expect(ledger.isScopeExhausted({ ...alice, budgetUsd: 0.4 })).toBe(true);
    // Another key's request still has the rest of the rung.
    const bob = await ledger.reserve(scoped(0.6, "bob-1", [{ scope: "key:bob", budgetUsd: 0.6 }]));
    expect(isReservation(bob)).toBe(true);
    expect(ledger.reservedUsd("cheap")).toBe(1);
  });

  it("a rung refusal gives the scope's hold back", async () => {
    const { ledger } = await setup();
    await admitted(ledger, "cheap", 0.9);
    const refused = await ledger.reserve(scoped(0.2, "alice-late"));
    expect(refused).toMatchObject({ refused: true, reason: "budget_exhausted", budgetUsd: 1 });
    expect(refused).not.toHaveProperty("scope");
    expect(ledger.reservedUsd("key:alice")).toBe(0);
    expect(ledger.reservedUsd("cheap")).toBe(0.9);
  });

  it("a scope budget ≤ 0 refuses as budget_disabled and release gives back every hold", async () => {
    const { ledger } = await setup();
    const disabled = await ledger.reserve(scoped(0, "off", [{ scope: "key:off", budgetUsd: 0 }]));
    expect(disabled).toMatchObject({
      refused: true,
      reason: "budget_disabled",
      budgetUsd: 0,
      scope: "key:off",
    });
    expect(ledger.isScopeExhausted({ scope: "key:off", budgetUsd: 0 })).toBe(true);
    const reservation = await ledger.reserve(scoped(0.25, "alice-released"));
    if (!isReservation(reservation)) throw new Error("refused");
    expect(await ledger.release(reservation)).toEqual({ released: true });
    expect(await ledger.release(reservation)).toEqual({ released: false });
    expect((await ledger.settle(reservation, 0.1, usage)).booked).toBe(false);
    expect(ledger.reservedUsd("key:alice")).toBe(0);
    expect(ledger.spentUsd("key:alice")).toBe(0);
    expect(ledger.reservedUsd("cheap")).toBe(0);
  });

  it("a scope keeps its own window: a monthly key budget outlives the daily rung window", async () => {
    const { ledger, advance } = await setup();
    const monthly = { scope: "key:alice", budgetUsd: 0.5, window: "month" as const };
    const first = await ledger.reserve(scoped(0.3, "alice-day-1", [monthly]));
    if (!isReservation(first)) throw new Error("refused");
    expect(first.scopes?.[0]?.windowKey).toBe("month:2026-11");
    await ledger.settle(first, 0.3, usage);
    expect(ledger.currentWindowKey("month")).toBe("month:2026-11");
    expect(ledger.spentUsd("key:alice", "month:2026-11")).toBe(0.3);
    advance(2 * 60 * minuteMs); // still 30 November
    advance(22 * 60 * minuteMs); // 1 December: a new day and a new month
    expect(ledger.currentWindowKey("month")).toBe("month:2026-12");
    expect(isReservation(await ledger.reserve(scoped(0.5, "alice-dec", [monthly])))).toBe(true);
  });
}
