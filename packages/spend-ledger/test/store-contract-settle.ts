import { expect, it } from "vitest";
import { admitted, type ContractSetup, dayStartMs, usage } from "./store-contract-harness";

/**
 * The contract's reserve, settle and release cases: what each books, and each once per reservation.
 */
export function settleContract(setup: ContractSetup): void {
  it("settle releases the reservation and books the actual cost with a record", async () => {
    const { ledger, advance } = await setup();
    const reservation = await admitted(ledger, "cheap", 0.5, "req-settle");
    advance(1500);
    const settled = await ledger.settle(reservation, 0.123457, {
      ...usage,
      cachedInputTokens: 400,
      clientKeyId: "key-7",
    });
    expect(settled.booked).toBe(true);
    expect(settled.overReservationMicroUsd).toBe(0);
    expect(ledger.spentUsd("cheap")).toBe(0.123457);
    expect(ledger.reservedUsd("cheap")).toBe(0);
    const records = await ledger.records();
    expect(records).toEqual([
      {
        time: new Date(dayStartMs + 1500).toISOString(),
        windowKey: "day:2026-11-30",
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        inputTokens: 1000,
        outputTokens: 200,
        cachedInputTokens: 400,
        cacheWriteTokens: 0,
        costMicroUsd: 123_457,
        costUsd: 0.123457,
        reservedMicroUsd: 500_000,
        clientKeyId: "key-7",
        requestId: "req-settle",
        reservationId: reservation.id,
      },
    ]);
  });

  it("an actual cost above the reservation is booked in full (the documented exception)", async () => {
    const { ledger } = await setup();
    const reservation = await admitted(ledger, "cheap", 0.9);
    const settled = await ledger.settle(reservation, 1.25, usage);
    expect(settled.overReservationMicroUsd).toBe(350_000);
    expect(ledger.spentUsd("cheap")).toBe(1.25);
    expect(ledger.isExhausted("cheap")).toBe(true);
    const next = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "m",
      maxCostUsd: 0,
      requestId: "after-overspend",
    });
    expect(next).toMatchObject({ refused: true, reason: "budget_exhausted", spentUsd: 1.25 });
  });

  it("settle is idempotent per reservation id", async () => {
    const { ledger } = await setup();
    const reservation = await admitted(ledger, "cheap", 0.3);
    await ledger.settle(reservation, 0.2, usage);
    const again = await ledger.settle(reservation, 0.2, usage);
    expect(again).toEqual({ booked: false, record: null, overReservationMicroUsd: 0 });
    expect(ledger.spentUsd("cheap")).toBe(0.2);
    expect(await ledger.records()).toHaveLength(1);
  });

  it("release books nothing, is idempotent, and a later settle books nothing", async () => {
    const { ledger } = await setup();
    const reservation = await admitted(ledger, "cheap", 0.7);
    expect(await ledger.release(reservation)).toEqual({ released: true });
    expect(await ledger.release(reservation)).toEqual({ released: false });
    expect((await ledger.settle(reservation, 0.5, usage)).booked).toBe(false);
    expect(ledger.spentUsd("cheap")).toBe(0);
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(await ledger.records()).toEqual([]);
    await admitted(ledger, "cheap", 1);
  });
}
