import type Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import { microToUsd } from "./money";
import { MINUTE } from "./spend-minutes";
import type { SpendRecord } from "./spend-record";

/**
 * The layout this code reads and writes, kept in the `spend_meta` row `layout` (the file may
 * be shared with other stores, so the file-wide `user_version` is left alone). Version 2 keeps only
 * live reservations in `spend_live` (a reserve inserts one row, its settle or release deletes
 * it) and the ids finished without a record in `spend_finished`; version 0 (the first release)
 * kept every reservation ever made in `spend_reservation` with a state and a partial index,
 * three B-tree writes per reserve and two more per settle, and a table that only grew.
 * Version 3 adds `spend_minute`, the records' sums per minute (see below), filled from the
 * records already kept when a file of an earlier version is opened.
 */
const SCHEMA_VERSION = 3;

const tables = `
CREATE TABLE IF NOT EXISTS spend_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS spend_window (
  rung TEXT NOT NULL,
  window_key TEXT NOT NULL,
  spent_micro_usd INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (rung, window_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS spend_live (
  id TEXT PRIMARY KEY,
  rung TEXT NOT NULL,
  window_key TEXT NOT NULL,
  amount_micro_usd INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS spend_finished (
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('released', 'expired', 'settled'))
) WITHOUT ROWID;
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
CREATE TABLE IF NOT EXISTS spend_minute (
  minute_ms INTEGER NOT NULL,
  window_key TEXT NOT NULL,
  rung TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  model TEXT NOT NULL,
  has_key INTEGER NOT NULL,
  client_key_id TEXT NOT NULL,
  requests INTEGER NOT NULL,
  cost_micro_usd INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  PRIMARY KEY (minute_ms, window_key, rung, connection_id, model, has_key, client_key_id)
) WITHOUT ROWID;
`;

/**
 * The records' sums per minute of `time_ms` and per value of every field a summary filters on
 * or groups by: one `spend_minute` row per (minute, budget window, rung, connection, model,
 * client key) that booked anything. A record without a client key counts in the row with
 * `has_key = 0` (and `client_key_id = ''`), so an empty key id of a library caller stays
 * apart from no key. The commit that inserts a record adds it to its row in the same
 * transaction, so the sums never disagree with the records. A summary over a time range reads
 * the rows of its whole minutes and the records of its two partial minutes only: the status
 * page's hour is about 60 rows per series plus two minutes of records, however busy the hour.
 * The statement below fills the table from the records of a file that had none (the minute of
 * an instant is the one that starts at or before it, as `minuteOf` computes).
 */
const fillMinutes = `
INSERT INTO spend_minute (minute_ms, window_key, rung, connection_id, model, has_key,
    client_key_id, requests, cost_micro_usd, input_tokens, output_tokens, cached_input_tokens,
    cache_write_tokens)
  SELECT time_ms - ((time_ms % ${MINUTE}) + ${MINUTE}) % ${MINUTE}, window_key, rung, connection_id, model,
    client_key_id IS NOT NULL, IFNULL(client_key_id, ''), COUNT(*), SUM(cost_micro_usd),
    SUM(input_tokens), SUM(output_tokens), SUM(cached_input_tokens), SUM(cache_write_tokens)
  FROM spend_record
  GROUP BY 1, window_key, rung, connection_id, model, 6, 7;
`;

// Version 0 to 2, in the transaction that creates the new tables: live rows move to spend_live,
// released and expired ids to spend_finished (a settled id is known by its record; one without
// a record, which version 0 never wrote, is kept as settled), then the old table goes.
const fromVersion0 = `
INSERT INTO spend_live (id, rung, window_key, amount_micro_usd, expires_at_ms)
  SELECT id, rung, window_key, amount_micro_usd, expires_at_ms
  FROM spend_reservation WHERE state = 'live';
INSERT INTO spend_finished (id, state)
  SELECT id, state FROM spend_reservation WHERE state IN ('released', 'expired');
INSERT INTO spend_finished (id, state)
  SELECT id, 'settled' FROM spend_reservation r WHERE state = 'settled'
    AND NOT EXISTS (SELECT 1 FROM spend_record WHERE reservation_id = r.id);
DROP INDEX IF EXISTS spend_reservation_live;
DROP TABLE spend_reservation;
`;

/**
 * Creates the spend tables in a new file, or brings a file of an earlier layout to
 * {@link SCHEMA_VERSION} in one transaction (nothing recorded is lost: spend, records, live
 * reservations and the ids already finished stay as they were; the minute sums are computed
 * from the records). Refuses a file written by a
 * newer layout, naming both versions, rather than misread it.
 */
export function prepareSchema(db: Database.Database, path: string): void {
  const version = layoutVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new SpendLedgerError({
      code: "store_failure",
      message: `the SQLite spend store ${path} has layout version ${version}, newer than this planfirst reads (${SCHEMA_VERSION}): upgrade planfirst to open it`,
    });
  }
  if (version === SCHEMA_VERSION) {
    db.exec(tables);
    return;
  }
  db.transaction(() => {
    const old = version === 0 && hasTable(db, "spend_reservation");
    db.exec(tables);
    if (old) db.exec(fromVersion0);
    db.exec(fillMinutes);
    db.prepare(
      `INSERT INTO spend_meta (key, value) VALUES ('layout', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(String(SCHEMA_VERSION));
  }).immediate();
}

function hasTable(db: Database.Database, name: string): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
    undefined
  );
}

/** The file's spend layout: its `spend_meta` row, or 0 (the first release, or a new file). */
function layoutVersion(db: Database.Database): number {
  if (!hasTable(db, "spend_meta")) return 0;
  const row = db.prepare("SELECT value FROM spend_meta WHERE key = 'layout'").get() as
    | { value: string }
    | undefined;
  return row === undefined ? 0 : Number(row.value);
}

/** A `spend_record` row as better-sqlite3 returns it. */
export interface RecordRow {
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

/** A `spend_record` row as a {@link SpendRecord}. */
export function toRecord(row: RecordRow): SpendRecord {
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
