import { microToUsd } from "./money";
import type { SpendRecord } from "./spend-record";

/** Tables of a SQLite spend file; created when missing, unchanged since the first release. */
export const sqliteSchema = `
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
