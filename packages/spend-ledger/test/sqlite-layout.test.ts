import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type SpendRecord, summarize } from "../src/spend-record";
import { createSqliteSpendStore } from "../src/sqlite";
import { fileReservations } from "./spend-file";
import { makeTempDir } from "./temp-dir";

// The layout of a spend file as the first release wrote it (no spend_meta: layout 0).
const firstReleaseLayout = `
CREATE TABLE spend_window (
  rung TEXT NOT NULL, window_key TEXT NOT NULL, spent_micro_usd INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (rung, window_key)
) WITHOUT ROWID;
CREATE TABLE spend_reservation (
  id TEXT PRIMARY KEY, rung TEXT NOT NULL, window_key TEXT NOT NULL,
  amount_micro_usd INTEGER NOT NULL, expires_at_ms INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('live', 'settled', 'released', 'expired'))
);
CREATE INDEX spend_reservation_live
  ON spend_reservation (rung, window_key, expires_at_ms) WHERE state = 'live';
CREATE TABLE spend_record (
  reservation_id TEXT PRIMARY KEY, time_ms INTEGER NOT NULL, time TEXT NOT NULL,
  window_key TEXT NOT NULL, rung TEXT NOT NULL, connection_id TEXT NOT NULL, model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,
  cost_micro_usd INTEGER NOT NULL, reserved_micro_usd INTEGER NOT NULL, client_key_id TEXT,
  request_id TEXT NOT NULL
);
CREATE INDEX spend_record_time ON spend_record (time_ms);
`;

const nowMs = Date.UTC(2026, 11, 1, 12);
const windowKey = "day:2026-12-01";

function writeFirstReleaseFile(path: string): void {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(firstReleaseLayout);
  const reservation = db.prepare("INSERT INTO spend_reservation VALUES (?, 'cheap', ?, ?, ?, ?)");
  reservation.run("live-1", windowKey, 300_000, nowMs + 60_000, "live");
  reservation.run("settled-1", windowKey, 500_000, nowMs + 60_000, "settled");
  reservation.run("released-1", windowKey, 0, nowMs, "released");
  reservation.run("expired-1", windowKey, 200_000, nowMs - 1, "expired");
  db.prepare("INSERT INTO spend_window VALUES ('cheap', ?, 250000)").run(windowKey);
  db.prepare(
    `INSERT INTO spend_record VALUES ('settled-1', ?, ?, ?, 'cheap', 'openai', 'gpt-4.1-mini',
       10, 5, 0, 0, 250000, 500000, NULL, 'request-1')`,
  ).run(nowMs - 1000, new Date(nowMs - 1000).toISOString(), windowKey);
  db.close();
}

/** A record of reservation `id` booked at `timeMs`. */
const recordOf = (id: string, timeMs: number): SpendRecord => ({
  time: new Date(timeMs).toISOString(),
  windowKey,
  rung: "cheap",
  connectionId: "openai",
  model: "gpt-4.1-mini",
  inputTokens: 100,
  outputTokens: 10,
  cachedInputTokens: 40,
  cacheWriteTokens: 5,
  costMicroUsd: 40_000,
  costUsd: 0.04,
  reservedMicroUsd: 100_000,
  clientKeyId: null,
  requestId: `request-${id}`,
  reservationId: id,
});

const reserveAgain = (reservationId: string) => ({
  reservationId,
  rung: "cheap",
  windowKey,
  amountMicroUsd: 1000,
  budgetMicroUsd: 10_000_000,
  nowMs,
  expiresAtMs: nowMs + 60_000,
});

describe("SQLite spend file layout", () => {
  const temp = makeTempDir();
  afterAll(() => temp.remove());

  it("brings a first-release file to the current layout without losing anything", async () => {
    const path = join(temp.dir, "first-release.db");
    writeFirstReleaseFile(path);

    const store = createSqliteSpendStore({ path });
    // Spend, the live reservation and the record are as they were.
    expect(store.totals("cheap", windowKey, nowMs)).toEqual({
      spentMicroUsd: 250_000,
      reservedMicroUsd: 300_000,
    });
    expect((await store.records({})).map((record) => record.reservationId)).toEqual(["settled-1"]);
    // Every id the old file knew is still known: none can be reserved a second time.
    for (const id of ["settled-1", "released-1", "expired-1"]) {
      await expect(store.reserve(reserveAgain(id))).resolves.toMatchObject({ admitted: false });
    }
    // The live one is still held, and its release frees it.
    await expect(
      store.release({ reservationId: "live-1", rung: "cheap", windowKey, nowMs }),
    ).resolves.toMatchObject({ released: true, reservedMicroUsd: 0 });
    await store.close();

    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM spend_meta WHERE key = 'layout'").get()).toEqual({
      value: "3",
    });
    // The record is in its minute's sums.
    expect(check.prepare("SELECT * FROM spend_minute").all()).toEqual([
      expect.objectContaining({ minute_ms: nowMs - 60_000, has_key: 0, requests: 1 }),
    ]);
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(
      check.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'spend_reservation%'").all(),
    ).toEqual([]);
    expect(Object.fromEntries(fileReservations(check))).toEqual({
      "live-1": "released",
      "settled-1": "settled",
      "released-1": "released",
      "expired-1": "expired",
    });
    check.close();
  });

  it("adds the minute sums to a file of layout 2, from its records, exactly", async () => {
    const path = join(temp.dir, "layout-2.db");
    const before = createSqliteSpendStore({ path });
    const times = [0, 1, 59_999, 60_000, 61_500, 3_600_000].map((offset) => nowMs + offset);
    for (const [index, timeMs] of times.entries()) {
      const id = `r-${index}`;
      await before.reserve({ ...reserveAgain(id), amountMicroUsd: 100_000 });
      await before.settle({
        reservationId: id,
        rung: "cheap",
        windowKey,
        nowMs,
        record: {
          ...recordOf(id, timeMs),
          clientKeyId: index % 2 === 0 ? "alice" : null,
          model: index < 3 ? "gpt-4.1-mini" : "gpt-4.1",
        },
      });
    }
    await before.close();
    // The file as layout 2 left it: no minute sums.
    const old = new Database(path);
    old.exec("DROP TABLE spend_minute; UPDATE spend_meta SET value = '2' WHERE key = 'layout'");
    old.close();

    const store = createSqliteSpendStore({ path });
    const records = await store.records({});
    expect(records).toHaveLength(times.length);
    const queries = [
      {},
      { clientKeyId: "alice" },
      { sinceMs: nowMs + 1, untilMs: nowMs + 61_000 },
      { sinceMs: nowMs + 60_000 },
      { untilMs: nowMs + 60_000, windowKey },
    ];
    for (const query of queries) {
      expect(await store.summary!(query)).toEqual(summarize(await store.records(query)));
    }
    await store.close();
    const check = new Database(path, { readonly: true });
    // Minutes nowMs (3 records), nowMs + 1 min (2) and nowMs + 60 min (1), split by key and model.
    expect(
      check
        .prepare(
          "SELECT minute_ms - ? AS at, has_key, client_key_id, model, requests FROM spend_minute ORDER BY 1, 2, 4",
        )
        .all(nowMs),
    ).toEqual([
      { at: 0, has_key: 0, client_key_id: "", model: "gpt-4.1-mini", requests: 1 },
      { at: 0, has_key: 1, client_key_id: "alice", model: "gpt-4.1-mini", requests: 2 },
      { at: 60_000, has_key: 0, client_key_id: "", model: "gpt-4.1", requests: 1 },
      { at: 60_000, has_key: 1, client_key_id: "alice", model: "gpt-4.1", requests: 1 },
      { at: 3_600_000, has_key: 0, client_key_id: "", model: "gpt-4.1", requests: 1 },
    ]);
    check.close();
  });

  it("keeps only live reservations in spend_live: a settle or release takes its row out", async () => {
    const path = join(temp.dir, "live-only.db");
    const store = createSqliteSpendStore({ path });
    const reserve = (id: string) => store.reserve({ ...reserveAgain(id), amountMicroUsd: 100_000 });
    await Promise.all([reserve("a"), reserve("b"), reserve("c")]);
    await store.settle({
      reservationId: "a",
      rung: "cheap",
      windowKey,
      nowMs,
      record: {
        time: new Date(nowMs).toISOString(),
        windowKey,
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        inputTokens: 1,
        outputTokens: 1,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        costMicroUsd: 40_000,
        costUsd: 0.04,
        reservedMicroUsd: 100_000,
        clientKeyId: null,
        requestId: "request-a",
        reservationId: "a",
      },
    });
    await store.release({ reservationId: "b", rung: "cheap", windowKey, nowMs });
    const live = store.database.prepare("SELECT id FROM spend_live").all();
    expect(live).toEqual([{ id: "c" }]);
    await store.close();
  });

  it("refuses a file of a newer layout, naming both versions, and leaves it untouched", () => {
    const path = join(temp.dir, "newer.db");
    const db = new Database(path);
    db.exec("CREATE TABLE spend_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID");
    db.exec("INSERT INTO spend_meta VALUES ('layout', '4'), ('future', 'x')");
    db.close();
    expect(() => createSqliteSpendStore({ path })).toThrow(
      /layout version 4, newer than this planfirst reads \(3\)/,
    );
    const check = new Database(path, { readonly: true });
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([
      { name: "spend_meta" },
    ]);
    check.close();
  });
});
