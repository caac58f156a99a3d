import { describe, expect, it } from "vitest";
import { createMemorySpendStore } from "./memory-store";
import { createSpendLedger } from "./spend-ledger";

const request = {
  rung: "cheap",
  connectionId: "openai",
  model: "gpt-4.1-mini",
  maxCostUsd: 0.5,
  requestId: "req-1",
};

describe("createSpendLedger", () => {
  it("windows follow the configured time zone and window length", async () => {
    let nowMs = Date.parse("2026-11-30T07:55:00Z");
    const ledger = createSpendLedger({
      store: createMemorySpendStore(),
      budgetsUsd: { cheap: 1 },
      window: "week",
      timeZone: "America/Los_Angeles",
      now: () => nowMs,
    });
    expect(ledger.currentWindowKey()).toBe("week:2026-11-23");
    const reservation = await ledger.reserve(request);
    if ("refused" in reservation) throw new Error("refused");
    expect(reservation.windowKey).toBe("week:2026-11-23");
    nowMs = Date.parse("2026-11-30T08:01:00Z");
    expect(ledger.currentWindowKey()).toBe("week:2026-11-30");
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(ledger.reservedUsd("cheap", "week:2026-11-23")).toBe(0.5);
  });

  it("reservations carry their id, amount (rounded up) and expiry", async () => {
    const nowMs = 1_800_000_000_000;
    const ledger = createSpendLedger({
      store: createMemorySpendStore(),
      now: () => nowMs,
      reservationTimeoutMs: 30_000,
    });
    const reservation = await ledger.reserve({ ...request, maxCostUsd: 0.0000011 });
    expect(reservation).toMatchObject({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      requestId: "req-1",
      amountMicroUsd: 2,
      reservedAtMs: nowMs,
      expiresAtMs: nowMs + 30_000,
    });
    const other = await ledger.reserve(request);
    expect("id" in other && "id" in reservation && other.id !== reservation.id).toBe(true);
  });

  it("budgets are rounded down to the micro-dollar and reported in USD", () => {
    const ledger = createSpendLedger({
      store: createMemorySpendStore(),
      budgetsUsd: { cheap: 2.0000009, premium: 0, off: -1, none: undefined },
    });
    expect(ledger.budgetUsd("cheap")).toBe(2);
    expect(ledger.budgetUsd("premium")).toBe(0);
    expect(ledger.budgetUsd("off")).toBe(0);
    expect(ledger.budgetUsd("none")).toBeUndefined();
  });

  it("rejects invalid options and requests, naming the path and what is allowed", async () => {
    const store = createMemorySpendStore();
    expect(() => createSpendLedger({ store, window: "year" as "day" })).toThrow(
      expect.objectContaining({ name: "SpendLedgerError", path: "window" }),
    );
    expect(() => createSpendLedger({ store, timeZone: "Nowhere/City" })).toThrow(
      expect.objectContaining({ path: "timeZone" }),
    );
    expect(() => createSpendLedger({ store, budgetsUsd: { cheap: Number.NaN } })).toThrow(
      expect.objectContaining({ path: "budgetsUsd.cheap" }),
    );
    expect(() => createSpendLedger({ store, reservationTimeoutMs: 0 })).toThrow(
      expect.objectContaining({ path: "reservationTimeoutMs" }),
    );
    const ledger = createSpendLedger({ store });
    await expect(ledger.reserve({ ...request, maxCostUsd: -1 })).rejects.toMatchObject({
      code: "invalid_argument",
      path: "request.maxCostUsd",
    });
    await expect(ledger.reserve({ ...request, rung: "" })).rejects.toMatchObject({
      path: "request.rung",
    });
    const reservation = await ledger.reserve(request);
    if ("refused" in reservation) throw new Error("refused");
    await expect(
      ledger.settle(reservation, 0.1, { model: "m", inputTokens: -1, outputTokens: 0 }),
    ).rejects.toMatchObject({ path: "record.inputTokens" });
    await expect(
      ledger.settle(reservation, Number.NaN, { model: "m", inputTokens: 1, outputTokens: 0 }),
    ).rejects.toMatchObject({ path: "actualCostUsd" });
  });

  it("an infinite budget never refuses", async () => {
    const ledger = createSpendLedger({
      store: createMemorySpendStore(),
      budgetsUsd: { cheap: Number.POSITIVE_INFINITY },
    });
    expect("refused" in (await ledger.reserve({ ...request, maxCostUsd: 1_000_000 }))).toBe(false);
  });
});
