import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import { microToUsd } from "./money";
import type { SpendRecord, SpendRecordQuery } from "./spend-record";
import type { SpendStore, WindowTotals } from "./spend-store";

/** Options of {@link createSqliteSpendStore}. */
export interface SqliteSpendStoreOptions {
  /** Database file; created with its tables when missing. Several stores may open one file. */
  path: string;
  /**
   * SQLite `synchronous` level, default `"full"`: every commit is fsynced before `settle()`
   * returns, so it survives a process kill and a power loss. `"normal"` (with WAL) still survives
   * a killed process, because a commit is in the WAL file once written, but the last commits
   * before a power loss or OS crash may be lost; it is faster.
   */
  synchronous?: "full" | "normal";
  /** How long a write waits for another connection's transaction, in ms; default 5000. */
  busyTimeoutMs?: number;
}

/** A {@link SpendStore} in a SQLite file, with the underlying handle for inspection. */
export interface SqliteSpendStore extends SpendStore {
  /** The better-sqlite3 connection (for backups and inspection); closed by `close()`. */
  readonly database: Database.Database;
}

const schema = `
CREATE TABLE IF NOT EXISTS spend_window (
  rung TEXT NOT NULL,
  window_key TEXT NOT NULL,
  spent_micro_usd INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (rung, window_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS spend_reservation (
  id TEXT PRIMARY KEY,
  rung TEXT NOT NULL,
  window_key TEXT NOT NULL,
  amount_micro_usd INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('live', 'settled', 'released', 'expired'))
);
CREATE INDEX IF NOT EXISTS spend_reservation_live
  ON spend_reservation (rung, window_key, expires_at_ms) WHERE state = 'live';
CREATE TABLE IF NOT EXISTS spend_record (
  reservation_id TEXT PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  time TEXT NOT NULL,
  window_key TEXT NOT NULL,
  rung TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_micro_usd INTEGER NOT NULL,
  reserved_micro_usd INTEGER NOT NULL,
  client_key_id TEXT,
  request_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS spend_record_time ON spend_record (time_ms);
`;

interface RecordRow {
  time: string;
  window_key: string;
  rung: string;
  connection_id: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  cost_micro_usd: number;
  reserved_micro_usd: number;
  client_key_id: string | null;
  request_id: string;
  reservation_id: string;
}

/**
 * A spend store in a SQLite file (better-sqlite3, WAL journal). Each reserve runs its
 * expire-check-insert in one `BEGIN IMMEDIATE` transaction, which takes the database's write
 * lock first, so reservations from other connections and processes on the same file serialise
 * and can never overshoot a budget together. A `settle()` that resolved is committed to disk
 * (see `synchronous`). Reads for the ledger's synchronous getters are direct queries.
 *
 * @throws SpendLedgerError `store_failure` when the file cannot be opened or migrated
 */
export function createSqliteSpendStore(options: SqliteSpendStoreOptions): SqliteSpendStore {
  const { path, synchronous = "full", busyTimeoutMs = 5000 } = options;
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.exec(schema);
  } catch (cause) {
    throw new SpendLedgerError({
      code: "store_failure",
      message: "cannot open the SQLite spend store",
      cause,
    });
  }

  const selectSpent = db.prepare<[string, string], { spent: number }>(
    "SELECT spent_micro_usd AS spent FROM spend_window WHERE rung = ? AND window_key = ?",
  );
  const selectReserved = db.prepare<[string, string, number], { reserved: number }>(
    `SELECT COALESCE(SUM(amount_micro_usd), 0) AS reserved FROM spend_reservation
     WHERE rung = ? AND window_key = ? AND state = 'live' AND expires_at_ms > ?`,
  );
  const selectReservation = db.prepare<[string], { state: string; expires_at_ms: number }>(
    "SELECT state, expires_at_ms FROM spend_reservation WHERE id = ?",
  );
  const selectRecordExists = db.prepare<[string], { one: number }>(
    "SELECT 1 AS one FROM spend_record WHERE reservation_id = ?",
  );
  const expireStale = db.prepare<[string, string, number]>(
    `UPDATE spend_reservation SET state = 'expired'
     WHERE rung = ? AND window_key = ? AND state = 'live' AND expires_at_ms <= ?`,
  );
  const insertReservation = db.prepare<[string, string, string, number, number, string]>(
    `INSERT INTO spend_reservation (id, rung, window_key, amount_micro_usd, expires_at_ms, state)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const setReservationState = db.prepare<[string, string]>(
    "UPDATE spend_reservation SET state = ? WHERE id = ?",
  );
  const addSpent = db.prepare<[string, string, number]>(
    `INSERT INTO spend_window (rung, window_key, spent_micro_usd) VALUES (?, ?, ?)
     ON CONFLICT (rung, window_key) DO UPDATE SET spent_micro_usd = spent_micro_usd + excluded.spent_micro_usd`,
  );
  const insertRecord = db.prepare(
    `INSERT INTO spend_record (reservation_id, time_ms, time, window_key, rung, connection_id, model,
       input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, cost_micro_usd,
       reserved_micro_usd, client_key_id, request_id)
     VALUES (@reservationId, @timeMs, @time, @windowKey, @rung, @connectionId, @model,
       @inputTokens, @outputTokens, @cachedInputTokens, @cacheWriteTokens, @costMicroUsd,
       @reservedMicroUsd, @clientKeyId, @requestId)`,
  );
  const selectRecords = db.prepare<
    { sinceMs: number | null; untilMs: number | null; rung: string | null },
    RecordRow
  >(
    `SELECT * FROM spend_record
     WHERE (@sinceMs IS NULL OR time_ms >= @sinceMs)
       AND (@untilMs IS NULL OR time_ms < @untilMs)
       AND (@rung IS NULL OR rung = @rung)
     ORDER BY time_ms, rowid`,
  );

  const totals = (rung: string, windowKey: string, nowMs: number): WindowTotals => ({
    spentMicroUsd: selectSpent.get(rung, windowKey)?.spent ?? 0,
    reservedMicroUsd: selectReserved.get(rung, windowKey, nowMs)?.reserved ?? 0,
  });

  /** A reservation is finished once settled (a record exists) or released. */
  const isFinished = (id: string): boolean =>
    selectReservation.get(id)?.state === "released" || selectRecordExists.get(id) !== undefined;

  const reserveTx = db.transaction(
    (
      id: string,
      rung: string,
      windowKey: string,
      amount: number,
      budget: number | null,
      nowMs: number,
      expiresAtMs: number,
    ) => {
      const existing = selectReservation.get(id);
      if (existing) {
        const live = existing.state === "live" && existing.expires_at_ms > nowMs;
        return { admitted: live, ...totals(rung, windowKey, nowMs) };
      }
      if (isFinished(id)) return { admitted: false, ...totals(rung, windowKey, nowMs) };
      expireStale.run(rung, windowKey, nowMs);
      const before = totals(rung, windowKey, nowMs);
      if (budget !== null && before.spentMicroUsd + before.reservedMicroUsd + amount > budget) {
        return { admitted: false, ...before };
      }
      insertReservation.run(id, rung, windowKey, amount, expiresAtMs, "live");
      return {
        admitted: true,
        spentMicroUsd: before.spentMicroUsd,
        reservedMicroUsd: before.reservedMicroUsd + amount,
      };
    },
  );

  const settleTx = db.transaction((record: SpendRecord, nowMs: number) => {
    const id = record.reservationId;
    if (isFinished(id)) return { booked: false, ...totals(record.rung, record.windowKey, nowMs) };
    setReservationState.run("settled", id);
    addSpent.run(record.rung, record.windowKey, record.costMicroUsd);
    insertRecord.run({ ...record, timeMs: Date.parse(record.time) });
    return { booked: true, ...totals(record.rung, record.windowKey, nowMs) };
  });

  const releaseTx = db.transaction((id: string, rung: string, windowKey: string, nowMs: number) => {
    const existing = selectReservation.get(id);
    if (isFinished(id)) return { released: false, ...totals(rung, windowKey, nowMs) };
    if (existing) setReservationState.run("released", id);
    else insertReservation.run(id, rung, windowKey, 0, nowMs, "released");
    const released = existing?.state === "live" && existing.expires_at_ms > nowMs;
    return { released, ...totals(rung, windowKey, nowMs) };
  });

  const guarded = <T>(operation: string, run: () => T): Promise<T> => {
    try {
      return Promise.resolve(run());
    } catch (cause) {
      return Promise.reject(
        new SpendLedgerError({
          code: "store_failure",
          message: `SQLite spend store: ${operation} failed`,
          cause,
        }),
      );
    }
  };

  return {
    database: db,
    ready: async () => {},
    reserve: (request) =>
      guarded("reserve", () =>
        reserveTx.immediate(
          request.reservationId,
          request.rung,
          request.windowKey,
          request.amountMicroUsd,
          request.budgetMicroUsd,
          request.nowMs,
          request.expiresAtMs,
        ),
      ),
    settle: (request) => guarded("settle", () => settleTx.immediate(request.record, request.nowMs)),
    release: (request) =>
      guarded("release", () =>
        releaseTx.immediate(request.reservationId, request.rung, request.windowKey, request.nowMs),
      ),
    totals,
    records: (query: SpendRecordQuery) =>
      guarded("records", () =>
        selectRecords
          .all({
            sinceMs: query.sinceMs ?? null,
            untilMs: query.untilMs ?? null,
            rung: query.rung ?? null,
          })
          .map(toRecord),
      ),
    close: async () => {
      if (db.open) db.close();
    },
  };
}

function toRecord(row: RecordRow): SpendRecord {
  return {
    time: row.time,
    windowKey: row.window_key,
    rung: row.rung,
    connectionId: row.connection_id,
    model: row.model,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedInputTokens: row.cached_input_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costMicroUsd: row.cost_micro_usd,
    costUsd: microToUsd(row.cost_micro_usd),
    reservedMicroUsd: row.reserved_micro_usd,
    clientKeyId: row.client_key_id,
    requestId: row.request_id,
    reservationId: row.reservation_id,
  };
}
