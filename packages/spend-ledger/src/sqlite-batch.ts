import type Database from "better-sqlite3";
import type { SpendRecord } from "./spend-record";

/**
 * One durable write of a batch, as plain data: it crosses from the thread that decided it to
 * the thread that commits it (structured clone), so it carries values, not closures.
 */
export type BatchWrite =
  | {
      kind: "reserve";
      id: string;
      rung: string;
      windowKey: string;
      amountMicroUsd: number;
      expiresAtMs: number;
    }
  | { kind: "settle"; id: string; record: SpendRecord }
  | { kind: "release"; id: string; rung: string; windowKey: string; nowMs: number };

/** What one transaction commits: the writes in decision order, then the expiry sweep. */
export interface Batch {
  writes: BatchWrite[];
  /** Marks live rows expiring at or before this instant expired; null when none did. */
  sweepUpToMs: number | null;
}

/**
 * Commits batches, in order, in one `BEGIN IMMEDIATE` transaction (one fsync); throws when it
 * did not commit, and then nothing of any of them is on disk. Returns the ids of the reserve
 * writes it refused because the file already knew the id (a reservation row or a record): those
 * wrote nothing, and their callers must be told no.
 */
export type BatchCommitter = (batches: readonly Batch[]) => string[];

/**
 * Prepares the statements of a spend file's writes on `db` and returns the function that commits
 * batches of them as one transaction (one fsync under `synchronous=FULL`). Writes run in the
 * order they were decided, so a settle never lands before the reservation it finishes.
 */
export function prepareBatchCommitter(db: Database.Database): BatchCommitter {
  const selectKnown = db.prepare<[string, string], { one: number }>(
    `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM spend_reservation WHERE id = ?)
       OR EXISTS (SELECT 1 FROM spend_record WHERE reservation_id = ?)`,
  );
  const insertReservation = db.prepare<[string, string, string, number, number]>(
    `INSERT INTO spend_reservation (id, rung, window_key, amount_micro_usd, expires_at_ms, state)
     VALUES (?, ?, ?, ?, ?, 'live')`,
  );
  const markSettled = db.prepare<[string]>(
    "UPDATE spend_reservation SET state = 'settled' WHERE id = ?",
  );
  const markReleased = db.prepare<[string, string, string, number]>(
    `INSERT INTO spend_reservation (id, rung, window_key, amount_micro_usd, expires_at_ms, state)
     VALUES (?, ?, ?, 0, ?, 'released')
     ON CONFLICT (id) DO UPDATE SET state = 'released'`,
  );
  const expireStale = db.prepare<[number]>(
    "UPDATE spend_reservation SET state = 'expired' WHERE state = 'live' AND expires_at_ms <= ?",
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
  const apply = (write: BatchWrite, refused: string[]): void => {
    switch (write.kind) {
      case "reserve":
        // Checked here, on the writing connection, rather than by a read on the deciding thread:
        // that read would come after every commit of this connection and so always start
        // from an invalidated page cache.
        if (selectKnown.get(write.id, write.id) !== undefined) {
          refused.push(write.id);
          return;
        }
        insertReservation.run(
          write.id,
          write.rung,
          write.windowKey,
          write.amountMicroUsd,
          write.expiresAtMs,
        );
        return;
      case "settle": {
        const { record } = write;
        markSettled.run(write.id);
        addSpent.run(record.rung, record.windowKey, record.costMicroUsd);
        insertRecord.run({ ...record, timeMs: Date.parse(record.time) });
        return;
      }
      case "release":
        markReleased.run(write.id, write.rung, write.windowKey, write.nowMs);
        return;
    }
  };
  // Each batch as if it were committed alone: its writes, then its sweep.
  const commit = db.transaction((batches: readonly Batch[]) => {
    const refused: string[] = [];
    for (const batch of batches) {
      for (const write of batch.writes) apply(write, refused);
      if (batch.sweepUpToMs !== null) expireStale.run(batch.sweepUpToMs);
    }
    return refused;
  });
  return (batches) => commit.immediate(batches);
}
