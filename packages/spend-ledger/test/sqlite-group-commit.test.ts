import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSpendLedger, isRefusal, type Reservation } from "../src/index";
import { createSqliteSpendStore } from "../src/sqlite";
import { fileReservations } from "./spend-file";
import { makeTempDir } from "./temp-dir";

const nowMs = Date.UTC(2026, 10, 30, 9);
const usage = { model: "gpt-4.1-mini", inputTokens: 100, outputTokens: 10 };
const request = (index: number, maxCostUsd = 0.01) => ({
  rung: "cheap",
  connectionId: "openai",
  model: "gpt-4.1-mini",
  maxCostUsd,
  requestId: `group-${index}`,
});

/** A second, plain connection on the file: it sees only what is committed. */
function committedCounts(path: string) {
  const reader = new Database(path, { readonly: true });
  try {
    const count = (sql: string) => (reader.prepare(sql).get() as { n: number }).n;
    return {
      // Every reservation id the file knows: live, finished, or settled with its record.
      reservations: fileReservations(reader).size,
      records: count("SELECT COUNT(*) AS n FROM spend_record"),
    };
  } finally {
    reader.close();
  }
}

describe("SQLite group commit", () => {
  const temp = makeTempDir();
  afterAll(() => temp.remove());

  it("commits everything queued in one turn as one transaction, and resolves only after it", async () => {
    const path = join(temp.dir, "batch.db");
    const store = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const before = store.commitStats();
    const pending = Array.from({ length: 64 }, (_, index) => ledger.reserve(request(index)));
    // Admission is already decided in memory; nothing is on disk yet.
    expect(ledger.reservedUsd("cheap")).toBe(0.64);
    expect(committedCounts(path).reservations).toBe(0);
    const held = (await Promise.all(pending)) as Reservation[];
    expect(held.every((result) => !isRefusal(result))).toBe(true);
    expect(committedCounts(path).reservations).toBe(64);
    expect(store.commitStats()).toEqual({
      batches: before.batches + 1,
      writes: before.writes + 64,
    });

    const settles = held.map((reservation) => ledger.settle(reservation, 0.005, usage));
    expect(ledger.spentUsd("cheap")).toBe(0.32);
    expect(committedCounts(path).records).toBe(0);
    await Promise.all(settles);
    expect(committedCounts(path).records).toBe(64);
    expect(store.commitStats().batches).toBe(before.batches + 2);
    await store.close();
  });

  it("admits in memory exactly up to the budget while the batch is still queued", async () => {
    const path = join(temp.dir, "admit.db");
    const store = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 0.1 }, now: () => nowMs });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => ledger.reserve(request(index, 0.004))),
    );
    expect(results.filter((result) => !isRefusal(result))).toHaveLength(25);
    expect(committedCounts(path).reservations).toBe(25);
    await store.close();
  });

  it("a settle the caller does not await is durable after flush(), and close() drains the queue", async () => {
    const path = join(temp.dir, "drain.db");
    const store = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const first = await ledger.reserve(request(1));
    const second = await ledger.reserve(request(2));
    if (isRefusal(first) || isRefusal(second)) throw new Error("refused");
    void ledger.settle(first, 0.004, usage);
    await ledger.flush();
    expect(committedCounts(path).records).toBe(1);
    void ledger.settle(second, 0.003, usage);
    await store.close();
    expect(committedCounts(path).records).toBe(2);

    const reopened = createSqliteSpendStore({ path });
    const again = createSpendLedger({
      store: reopened,
      budgetsUsd: { cheap: 1 },
      now: () => nowMs,
    });
    expect(again.spentUsd("cheap")).toBe(0.007);
    expect(again.reservedUsd("cheap")).toBe(0);
    await reopened.close();
  });

  it("records() lists a settle the caller did not await", async () => {
    const path = join(temp.dir, "records.db");
    const store = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const held = await ledger.reserve(request(1));
    if (isRefusal(held)) throw new Error("refused");
    void ledger.settle(held, 0.004, usage);
    expect((await ledger.records()).map((record) => record.requestId)).toEqual(["group-1"]);
    await store.close();
  });

  it("a batch that cannot commit fails its operations and takes their effects back out", async () => {
    const path = join(temp.dir, "busy.db");
    const store = createSqliteSpendStore({ path, busyTimeoutMs: 20 });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const kept = await ledger.reserve(request(0, 0.2));
    if (isRefusal(kept)) throw new Error("refused");

    // Another connection holds the write lock past the busy timeout.
    const blocker = new Database(path);
    blocker.exec("BEGIN IMMEDIATE");
    const reserve = ledger.reserve(request(1, 0.5));
    const settle = ledger.settle(kept, 0.1, usage);
    expect(ledger.reservedUsd("cheap")).toBe(0.5);
    await expect(reserve).rejects.toMatchObject({
      name: "SpendLedgerError",
      code: "store_failure",
    });
    await expect(settle).rejects.toMatchObject({ code: "store_failure" });
    expect(ledger.reservedUsd("cheap")).toBe(0.2);
    expect(ledger.spentUsd("cheap")).toBe(0);
    blocker.exec("ROLLBACK");
    blocker.close();

    // The settle can be retried: it was not booked.
    expect((await ledger.settle(kept, 0.1, usage)).booked).toBe(true);
    expect(ledger.spentUsd("cheap")).toBe(0.1);
    expect(committedCounts(path).records).toBe(1);
    await store.close();
  });

  it("a batch of a reserve, a settle and a release commits each as decided, or puts each back", async () => {
    const path = join(temp.dir, "mixed.db");
    const store = createSqliteSpendStore({ path, busyTimeoutMs: 20 });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const toSettle = await ledger.reserve(request(1, 0.2));
    const toRelease = await ledger.reserve(request(2, 0.3));
    if (isRefusal(toSettle) || isRefusal(toRelease)) throw new Error("refused");

    const blocker = new Database(path);
    blocker.exec("BEGIN IMMEDIATE");
    const failing = [
      ledger.reserve(request(3, 0.1)),
      ledger.settle(toSettle, 0.05, usage),
      ledger.release(toRelease),
    ];
    expect(ledger.reservedUsd("cheap")).toBe(0.1);
    expect(ledger.spentUsd("cheap")).toBe(0.05);
    for (const operation of failing) {
      await expect(operation).rejects.toMatchObject({ code: "store_failure" });
    }
    // Memory agrees with the file again: both reservations held, nothing spent.
    expect(ledger.reservedUsd("cheap")).toBe(0.5);
    expect(ledger.spentUsd("cheap")).toBe(0);
    blocker.exec("ROLLBACK");
    blocker.close();

    const before = store.commitStats();
    const [settled, released, reserved] = await Promise.all([
      ledger.settle(toSettle, 0.05, usage),
      ledger.release(toRelease),
      ledger.reserve(request(4, 0.1)),
    ]);
    expect(settled.booked).toBe(true);
    expect(released).toEqual({ released: true });
    if (isRefusal(reserved)) throw new Error("refused");
    expect(store.commitStats()).toEqual({ batches: before.batches + 1, writes: before.writes + 3 });
    const reader = new Database(path, { readonly: true });
    const states = Object.fromEntries(fileReservations(reader));
    reader.close();
    expect(states).toEqual({
      [toSettle.id]: "settled",
      [toRelease.id]: "released",
      [reserved.id]: "live",
    });
    expect((await ledger.records()).map((record) => record.reservationId)).toEqual([toSettle.id]);
    await store.close();
  });

  it("a reserve of an id the file already knows is refused by its batch and holds nothing", async () => {
    const path = join(temp.dir, "known-id.db");
    const store = createSqliteSpendStore({ path });
    const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1 }, now: () => nowMs });
    const held = await ledger.reserve(request(1));
    if (isRefusal(held)) throw new Error("refused");
    await ledger.settle(held, 0.004, usage);
    const again = {
      reservationId: held.id,
      rung: "cheap",
      windowKey: held.windowKey,
      amountMicroUsd: 10_000,
      budgetMicroUsd: 1_000_000,
      nowMs,
      expiresAtMs: nowMs + 60_000,
    };
    // Twice at once: the second sees the first held in memory and gets the same answer.
    const [first, second] = await Promise.all([store.reserve(again), store.reserve(again)]);
    expect(first).toMatchObject({ admitted: false, reservedMicroUsd: 0, spentMicroUsd: 4000 });
    expect(second).toMatchObject({ admitted: false, reservedMicroUsd: 0 });
    expect(ledger.reservedUsd("cheap")).toBe(0);
    expect(committedCounts(path)).toEqual({ reservations: 1, records: 1 });
    await store.close();

    // The same after a reopen, when nothing of it is in memory.
    const reopened = createSqliteSpendStore({ path });
    expect(await reopened.reserve(again)).toMatchObject({ admitted: false, reservedMicroUsd: 0 });
    expect(reopened.totals("cheap", held.windowKey, nowMs).reservedMicroUsd).toBe(0);
    await reopened.close();
  });
});
