import { expect, it, vi } from "vitest";
import { isRefusal } from "../src/index";
import {
  admitted,
  type ContractSetup,
  minuteMs,
  reserveArgs,
  usage,
} from "./store-contract-harness";

/**
 * The contract's expiry and window cases: when a reservation stops holding budget, and which window
 * a request is booked in.
 */
export function expiryContract(setup: ContractSetup): void {
  it("a reservation never settled expires after the timeout and frees its budget", async () => {
    const { ledger, advance } = await setup();
    await admitted(ledger, "cheap", 1);
    advance(10 * minuteMs - 1);
    expect(isRefusal(await ledger.reserve({ ...reserveArgs, maxCostUsd: 0.01 }))).toBe(true);
    advance(1);
    const fresh = await admitted(ledger, "cheap", 0.25);
    expect(fresh.amountMicroUsd).toBe(250_000);
    expect(ledger.reservedUsd("cheap")).toBe(0.25);
  });

  it("the synchronous reads drop an expired reservation without another write", async () => {
    const { ledger, advance } = await setup();
    await admitted(ledger, "cheap", 0.4);
    advance(10 * minuteMs);
    await vi.waitFor(() => expect(ledger.reservedUsd("cheap")).toBe(0), { timeout: 2000 });
    expect(ledger.isExhausted("cheap")).toBe(false);
  });

  it("a settle after the reservation expired still books what was spent", async () => {
    const { ledger, advance } = await setup();
    const reservation = await admitted(ledger, "cheap", 0.4);
    advance(11 * minuteMs);
    const settled = await ledger.settle(reservation, 0.3, usage);
    expect(settled.booked).toBe(true);
    expect(ledger.spentUsd("cheap")).toBe(0.3);
    expect(ledger.reservedUsd("cheap")).toBe(0);
  });

  it("a request is booked in the window where it started", async () => {
    const { ledger, advance } = await setup();
    advance(24 * 60 * minuteMs - 1000);
    const lateReservation = await admitted(ledger, "cheap", 0.9);
    expect(lateReservation.windowKey).toBe("day:2026-11-30");
    advance(2000);
    expect(ledger.currentWindowKey()).toBe("day:2026-12-01");
    await ledger.settle(lateReservation, 0.8, usage);
    expect(ledger.spentUsd("cheap", "day:2026-11-30")).toBe(0.8);
    expect(ledger.spentUsd("cheap")).toBe(0);
    await admitted(ledger, "cheap", 1);
    const [record] = await ledger.records();
    expect(record?.windowKey).toBe("day:2026-11-30");
  });

  it("rungs and windows keep separate budgets", async () => {
    const { ledger, advance } = await setup({ budgetsUsd: { cheap: 1, other: 1 } });
    await admitted(ledger, "cheap", 1);
    await admitted(ledger, "other", 1);
    advance(24 * 60 * minuteMs);
    await admitted(ledger, "cheap", 1);
  });
}
