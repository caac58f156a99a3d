import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSpendLedger, type SpendRecordQuery } from "../src/index";
import { minuteSpans } from "../src/spend-minutes";
import { createSqliteSpendStore } from "../src/sqlite";
import { MINUTE_FILTERS, recordFilter } from "../src/sqlite-spend-file";
import { bookEndedWindow, expectPrunedEndedWindow } from "./prune-scenario";
import { describeSpendStoreContract } from "./store-contract";
import { makeTempDir } from "./temp-dir";

describeSpendStoreContract("sqlite", () => {
  const temp = makeTempDir();
  const path = join(temp.dir, "spend.db");
  return {
    store: createSqliteSpendStore({ path }),
    openPeer: () => createSqliteSpendStore({ path }),
    cleanup: temp.remove,
  };
});

describe("sqlite spend store", () => {
  const temp = makeTempDir();
  afterAll(() => temp.remove());

  it("reads a time-bounded query's range on the time index, never every record booked", async () => {
    const store = createSqliteSpendStore({ path: join(temp.dir, "plan.db") });
    try {
      const plan = (query: SpendRecordQuery) => {
        const { where, parameters } = recordFilter(query);
        return store.database
          .prepare(`EXPLAIN QUERY PLAN SELECT * FROM spend_record ${where}`)
          .all(parameters)
          .map((row) => (row as { detail: string }).detail)
          .join("; ");
      };
      const sinceMs = Date.UTC(2026, 11, 1);
      expect(plan({ sinceMs })).toMatch(
        /SEARCH spend_record USING INDEX spend_record_time \(time_ms>\?\)/,
      );
      expect(
        plan({ sinceMs, untilMs: sinceMs + 1, clientKeyId: "alice", windowKey: "day:x" }),
      ).toMatch(/SEARCH spend_record USING INDEX spend_record_time \(time_ms>\? AND time_ms<\?\)/);
      // A summary reads whole minutes from their sums, on the sums' key, and only the records
      // of the partial minutes at either end.
      const nowMs = sinceMs + 3_600_000 + 12_345;
      const hour = minuteSpans({ sinceMs: nowMs - 3_600_000, untilMs: nowMs, clientKeyId: "a" });
      expect(hour).toEqual({
        minutes: { sinceMs: sinceMs + 60_000, untilMs: sinceMs + 3_600_000, clientKeyId: "a" },
        records: [
          { sinceMs: nowMs - 3_600_000, untilMs: sinceMs + 60_000, clientKeyId: "a" },
          { sinceMs: sinceMs + 3_600_000, untilMs: nowMs, clientKeyId: "a" },
        ],
      });
      const minutes = recordFilter(hour.minutes!, MINUTE_FILTERS);
      const minutesPlan = store.database
        .prepare(`EXPLAIN QUERY PLAN SELECT * FROM spend_minute ${minutes.where}`)
        .all(minutes.parameters)
        .map((row) => (row as { detail: string }).detail)
        .join("; ");
      expect(minutesPlan).toMatch(
        /SEARCH spend_minute USING PRIMARY KEY \(minute_ms>\? AND minute_ms<\?\)/,
      );
      // Within one minute, or on whole minutes, one part only.
      expect(minuteSpans({ sinceMs: nowMs, untilMs: nowMs + 1 })).toEqual({
        minutes: null,
        records: [{ sinceMs: nowMs, untilMs: nowMs + 1 }],
      });
      expect(minuteSpans({ sinceMs, rung: "cheap" })).toEqual({
        minutes: { sinceMs, untilMs: undefined, rung: "cheap" },
        records: [],
      });
      expect(recordFilter({ rung: "cheap", clientKeyId: "alice" })).toEqual({
        where: "WHERE rung = @rung AND client_key_id = @clientKeyId",
        parameters: { rung: "cheap", clientKeyId: "alice" },
        set: 0b1100,
      });
    } finally {
      await store.close();
    }
  });

  it("keeps spend, live reservations and records across a reopen", async () => {
    const path = join(temp.dir, "reopen.db");
    const nowMs = Date.UTC(2026, 10, 30, 9);
    const first = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store: first, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const settled = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.5,
      requestId: "a",
    });
    if ("refused" in settled) throw new Error("refused");
    await ledger.settle(settled, 0.25, { model: "gpt-4.1-mini", inputTokens: 10, outputTokens: 5 });
    await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.5,
      requestId: "b",
    });
    await first.close();

    const second = createSqliteSpendStore({ path });
    const reopened = createSpendLedger({
      store: second,
      budgetsUsd: { cheap: 1 },
      now: () => nowMs,
    });
    expect(reopened.spentUsd("cheap")).toBe(0.25);
    expect(reopened.reservedUsd("cheap")).toBe(0.5);
    expect((await reopened.records()).map((r) => r.requestId)).toEqual(["a"]);
    expect(second.database.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(second.database.pragma("synchronous", { simple: true })).toBe(2);
    await second.close();
  });

  it("keeps a key scope's spend across a reopen, and its settle stays done", async () => {
    const path = join(temp.dir, "scoped.db");
    const nowMs = Date.UTC(2026, 10, 30, 9);
    const key = { scope: "key:alice", budgetUsd: 0.4 };
    const usage = { model: "gpt-4.1-mini", inputTokens: 10, outputTokens: 5 };
    const first = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store: first, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const reservation = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.3,
      requestId: "a",
      scopes: [key],
    });
    if ("refused" in reservation) throw new Error("refused");
    await ledger.settle(reservation, 0.25, usage);
    await first.close();

    const second = createSqliteSpendStore({ path });
    const reopened = createSpendLedger({
      store: second,
      budgetsUsd: { cheap: 1 },
      now: () => nowMs,
    });
    expect(reopened.spentUsd("key:alice")).toBe(0.25);
    expect(reopened.spentUsd("cheap")).toBe(0.25);
    expect((await reopened.settle(reservation, 0.25, usage)).booked).toBe(false);
    expect(reopened.spentUsd("key:alice")).toBe(0.25);
    expect(await reopened.records()).toHaveLength(1);
    const over = await reopened.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.2,
      requestId: "b",
      scopes: [key],
    });
    expect(over).toMatchObject({ refused: true, scope: "key:alice", spentUsd: 0.25 });
    await second.close();
  });

  it("reports an unusable path as a store_failure", () => {
    expect(() =>
      createSqliteSpendStore({ path: join(temp.dir, "missing", "dir", "x.db") }),
    ).toThrow(expect.objectContaining({ name: "SpendLedgerError", code: "store_failure" }));
  });

  it("takes out the history of ended windows in steps, and the file reopens with the same books", async () => {
    const path = join(temp.dir, "prune.db");
    const store = createSqliteSpendStore({ path });
    const scenario = await bookEndedWindow(store);
    const first = await expectPrunedEndedWindow(store, scenario, 2_000);
    // The released reservation's id was kept apart from the records.
    expect(first.finishedIds).toBe(1);
    const count = (table: string) =>
      (store.database.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count("spend_record"), count("spend_finished"), count("spend_live")]).toEqual([
      2, 0, 0,
    ]);
    expect(count("spend_window")).toBe(1);
    await store.close();

    const reopened = createSqliteSpendStore({ path });
    try {
      const ledger = createSpendLedger({
        store: reopened,
        budgetsUsd: { cheap: 100 },
        now: () => scenario.nowMs,
      });
      expect(ledger.spentUsd("cheap")).toBeCloseTo(0.01, 9);
      expect((await ledger.summary()).total).toMatchObject({ requests: 2 });
    } finally {
      await reopened.close();
    }
  });
});
