import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
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
      value: "2",
    });
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
    db.exec("INSERT INTO spend_meta VALUES ('layout', '3'), ('future', 'x')");
    db.close();
    expect(() => createSqliteSpendStore({ path })).toThrow(
      /layout version 3, newer than this planfirst reads \(2\)/,
    );
    const check = new Database(path, { readonly: true });
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([
      { name: "spend_meta" },
    ]);
    check.close();
  });
});
