import { expect } from "vitest";
import {
  createSpendLedger,
  type Reservation,
  type SpendLedger,
  type SpendStore,
  type StorePruneResult,
} from "../src/index";
import { admitted, dayStartMs, minuteMs, usage } from "./store-contract-harness";

const dayMs = 24 * 60 * 60 * 1000;

/** Records the scenario books on its first day: more than one prune step of either store. */
export const FIRST_DAY_RECORDS = 2_100;

/**
 * A spend history with an ended window, on `store`: on 30 November 2026, the cheap rung books
 * {@link FIRST_DAY_RECORDS} requests over two minutes and releases one reservation, and the
 * other rung holds a reservation that stays live for 60 days; forty days later the cheap rung
 * books one more. Returns a ledger at that later day, and the other rung's reservation.
 */
export async function bookEndedWindow(store: SpendStore) {
  let nowMs = dayStartMs;
  const ledger = createSpendLedger({
    store,
    budgetsUsd: { cheap: 100, other: 1 },
    now: () => nowMs,
    reservationTimeoutMs: 60 * dayMs,
  });
  await ledger.ready();
  for (const minute of [0, 1]) {
    nowMs = dayStartMs + minute * minuteMs;
    const held = await Promise.all(
      Array.from({ length: FIRST_DAY_RECORDS / 2 }, () => admitted(ledger, "cheap", 0.01)),
    );
    await Promise.all(held.map((reservation) => ledger.settle(reservation, 0.01, usage)));
  }
  await ledger.release(await admitted(ledger, "cheap", 0.01));
  const live = await admitted(ledger, "other", 0.5);
  nowMs = dayStartMs + 40 * dayMs;
  await ledger.settle(await admitted(ledger, "cheap", 0.01), 0.01, usage);
  await ledger.flush();
  return { ledger, live, nowMs };
}

/**
 * What every durable store must show after pruning the scenario at 32 days before its later
 * day: a prune stopped at once ends after its first step (`stepRecords` records), the next one
 * takes the rest of the first day's history; the live reservation's window is kept, the books
 * are right. Returns what the two deleted together.
 */
export async function expectPrunedEndedWindow(
  store: SpendStore,
  scenario: { ledger: SpendLedger; live: Reservation; nowMs: number },
  stepRecords: number,
): Promise<StorePruneResult> {
  const { ledger, live, nowMs } = scenario;
  const stopping = new AbortController();
  const stopped = store.prune!(nowMs - 32 * dayMs, { signal: stopping.signal });
  stopping.abort();
  const partial = await stopped;
  expect(partial.records).toBe(stepRecords);
  const rest = await store.prune!(nowMs - 32 * dayMs);
  expect(rest.records).toBe(FIRST_DAY_RECORDS - stepRecords);
  const both: StorePruneResult = {
    records: partial.records + rest.records,
    minuteSums: partial.minuteSums + rest.minuteSums,
    finishedIds: partial.finishedIds + rest.finishedIds,
    windows: partial.windows + rest.windows,
  };
  expect(both.windows).toBe(1);
  expect(both.minuteSums).toBeGreaterThanOrEqual(2);
  expect((await ledger.records()).map((record) => record.rung)).toEqual(["cheap"]);
  expect(ledger.spentUsd("cheap")).toBeCloseTo(0.01, 9);
  // The window that still holds a live reservation was kept: it settles, and books.
  expect((await ledger.settle(live, 0.3, usage)).booked).toBe(true);
  expect(ledger.spentUsd("other", live.windowKey)).toBeCloseTo(0.3, 9);
  // The first day's cheap window is gone from the books as from the history: they read what
  // the store would load again.
  expect(ledger.spentUsd("cheap", live.windowKey)).toBe(0);
  // Nothing is left of the first day but that window, now with nothing live: it goes too.
  expect(await store.prune!(nowMs - 32 * dayMs)).toMatchObject({
    records: 0,
    minuteSums: 0,
    windows: 1,
  });
  expect(ledger.spentUsd("other", live.windowKey)).toBe(0);
  expect(ledger.spentUsd("cheap")).toBeCloseTo(0.01, 9);
  return both;
}
