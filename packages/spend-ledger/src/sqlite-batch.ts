import type Database from "better-sqlite3";
import { minuteOf } from "./spend-minutes";
import type { SpendRecord } from "./spend-record";

/**
 * The writes of a batch in decision order, as one flat array of primitives: each write is its
 * kind tag followed by its fields (see the `push…` encoders below). It crosses from the thread
 * that decided it to the thread that commits it by structured clone, which copies a flat array
 * of strings and numbers several times faster than the same values as one small object per
 * write, whose keys it would copy again for every write.
 */
export type BatchWrites = (string | number | null)[];

const reserveTag = 0;
const settleTag = 1;
const releaseTag = 2;
const bookTag = 3;

/** Appends a reserve: insert the live reservation (refused when the file already knows `id`). */
export function pushReserve(
  writes: BatchWrites,
  id: string,
  rung: string,
  windowKey: string,
  amountMicroUsd: number,
  expiresAtMs: number,
): void {
  writes.push(reserveTag, id, rung, windowKey, amountMicroUsd, expiresAtMs);
}

/** Appends a settle: delete live reservation `id`, add the cost to its window, insert `record`. */
export function pushSettle(writes: BatchWrites, id: string, record: SpendRecord): void {
  // Every stored column of the record (`costUsd` is derived from `costMicroUsd` on read).
  writes.push(
    settleTag,
    id,
    record.reservationId,
    record.time,
    record.windowKey,
    record.rung,
    record.connectionId,
    record.model,
    record.inputTokens,
    record.outputTokens,
    record.cachedInputTokens,
    record.cacheWriteTokens,
    record.costMicroUsd,
    record.reservedMicroUsd,
    record.clientKeyId,
    record.requestId,
  );
}

/**
 * Appends a settle that keeps no record (a budget scope settled beside its rung): delete live
 * reservation `id`, add `costMicroUsd` to its window, and keep the id as settled.
 */
export function pushBook(
  writes: BatchWrites,
  id: string,
  rung: string,
  windowKey: string,
  costMicroUsd: number,
): void {
  writes.push(bookTag, id, rung, windowKey, costMicroUsd);
}

/** Appends a release: delete live reservation `id` and keep the id as released. */
export function pushRelease(writes: BatchWrites, id: string): void {
  writes.push(releaseTag, id);
}

/**
 * A `spend_minute` row's columns in table order: minute, window, rung, connection, model,
 * has_key, client_key_id, then the sums (requests, cost, input, output, cached input, cache
 * write).
 */
type MinuteRow = [
  number,
  string,
  string,
  string,
  string,
  number,
  string,
  number,
  number,
  number,
  number,
  number,
  number,
];

/** What one transaction commits: the writes in decision order, then the expiry sweep. */
export interface Batch {
  writes: BatchWrites;
  /** Moves live reservations expiring at or before this instant to expired; null when none did. */
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
  const selectKnown = db.prepare<[string, string, string], { one: number }>(
    `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM spend_live WHERE id = ?)
       OR EXISTS (SELECT 1 FROM spend_record WHERE reservation_id = ?)
       OR EXISTS (SELECT 1 FROM spend_finished WHERE id = ?)`,
  );
  const insertReservation = db.prepare<[string, string, string, number, number]>(
    `INSERT INTO spend_live (id, rung, window_key, amount_micro_usd, expires_at_ms)
     VALUES (?, ?, ?, ?, ?)`,
  );
  // A settle deletes the live row; its record is what keeps the id known from then on.
  const deleteLive = db.prepare<[string]>("DELETE FROM spend_live WHERE id = ?");
  const markReleased = db.prepare<[string]>(
    `INSERT INTO spend_finished (id, state) VALUES (?, 'released')
     ON CONFLICT (id) DO UPDATE SET state = 'released'`,
  );
  // A settle without a record keeps its id known here instead.
  const markSettled = db.prepare<[string]>(
    `INSERT INTO spend_finished (id, state) VALUES (?, 'settled')
     ON CONFLICT (id) DO UPDATE SET state = 'settled'`,
  );
  const keepExpired = db.prepare<[number]>(
    `INSERT INTO spend_finished (id, state)
       SELECT id, 'expired' FROM spend_live WHERE expires_at_ms <= ?
     ON CONFLICT (id) DO NOTHING`,
  );
  const deleteExpired = db.prepare<[number]>("DELETE FROM spend_live WHERE expires_at_ms <= ?");
  const addSpent = db.prepare<[string, string, number]>(
    `INSERT INTO spend_window (rung, window_key, spent_micro_usd) VALUES (?, ?, ?)
     ON CONFLICT (rung, window_key) DO UPDATE SET spent_micro_usd = spent_micro_usd + excluded.spent_micro_usd`,
  );
  const insertRecord = db.prepare(
    `INSERT INTO spend_record (reservation_id, time_ms, time, window_key, rung, connection_id, model,
       input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, cost_micro_usd,
       reserved_micro_usd, client_key_id, request_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addToMinute = db.prepare<MinuteRow>(
    `INSERT INTO spend_minute (minute_ms, window_key, rung, connection_id, model, has_key,
       client_key_id, requests, cost_micro_usd, input_tokens, output_tokens, cached_input_tokens,
       cache_write_tokens)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (minute_ms, window_key, rung, connection_id, model, has_key, client_key_id)
     DO UPDATE SET requests = requests + excluded.requests,
       cost_micro_usd = cost_micro_usd + excluded.cost_micro_usd,
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
       cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`,
  );
  /**
   * Spend added per window by the settles of one transaction, written once per window at its
   * end: nothing in the transaction reads `spend_window`, and one upsert per window replaces
   * one per settle. The records' minute sums (`spend_minute`) are gathered the same way.
   */
  type SpentByWindow = Map<string, { rung: string; windowKey: string; microUsd: number }>;
  const addToWindow = (spent: SpentByWindow, rung: string, windowKey: string, micro: number) => {
    const windowId = `${rung}\u0000${windowKey}`;
    const added = spent.get(windowId);
    if (added) added.microUsd += micro;
    else spent.set(windowId, { rung, windowKey, microUsd: micro });
  };
  /** Adds the record of the settle starting at `at` (time `timeMs`) to its minute's row. */
  const addRecordToMinute = (
    minutes: Map<string, MinuteRow>,
    writes: BatchWrites,
    at: number,
    timeMs: number,
  ) => {
    const minuteMs = minuteOf(timeMs);
    const windowKey = writes[at + 4] as string;
    const rung = writes[at + 5] as string;
    const connectionId = writes[at + 6] as string;
    const model = writes[at + 7] as string;
    const clientKeyId = writes[at + 14] as string | null;
    const hasKey = clientKeyId === null ? 0 : 1;
    const key = clientKeyId ?? "";
    const rowId = JSON.stringify([minuteMs, windowKey, rung, connectionId, model, clientKeyId]);
    let row = minutes.get(rowId);
    if (row === undefined) {
      row = [minuteMs, windowKey, rung, connectionId, model, hasKey, key, 0, 0, 0, 0, 0, 0];
      minutes.set(rowId, row);
    }
    row[7] += 1;
    row[8] += writes[at + 12] as number;
    row[9] += writes[at + 8] as number;
    row[10] += writes[at + 9] as number;
    row[11] += writes[at + 10] as number;
    row[12] += writes[at + 11] as number;
  };
  /** Applies the write starting at `at`; returns where the next one starts. */
  const apply = (
    writes: BatchWrites,
    at: number,
    refused: string[],
    spent: SpentByWindow,
    minutes: Map<string, MinuteRow>,
  ): number => {
    const tag = writes[at];
    const id = writes[at + 1] as string;
    switch (tag) {
      case reserveTag:
        // Checked here, on the writing connection, rather than by a read on the deciding thread:
        // that read would come after every commit of this connection and so always start
        // from an invalidated page cache.
        if (selectKnown.get(id, id, id) !== undefined) refused.push(id);
        else {
          insertReservation.run(
            id,
            writes[at + 2] as string,
            writes[at + 3] as string,
            writes[at + 4] as number,
            writes[at + 5] as number,
          );
        }
        return at + 6;
      case settleTag: {
        const time = writes[at + 3] as string;
        const rung = writes[at + 5] as string;
        const windowKey = writes[at + 4] as string;
        const costMicroUsd = writes[at + 12] as number;
        const timeMs = Date.parse(time);
        deleteLive.run(id);
        addToWindow(spent, rung, windowKey, costMicroUsd);
        addRecordToMinute(minutes, writes, at, timeMs);
        insertRecord.run(
          writes[at + 2], // reservation_id
          timeMs,
          time,
          windowKey,
          rung,
          writes[at + 6], // connection_id
          writes[at + 7], // model
          writes[at + 8], // input_tokens
          writes[at + 9], // output_tokens
          writes[at + 10], // cached_input_tokens
          writes[at + 11], // cache_write_tokens
          costMicroUsd,
          writes[at + 13], // reserved_micro_usd
          writes[at + 14], // client_key_id
          writes[at + 15], // request_id
        );
        return at + 16;
      }
      case releaseTag:
        deleteLive.run(id);
        markReleased.run(id);
        return at + 2;
      case bookTag:
        deleteLive.run(id);
        markSettled.run(id);
        addToWindow(
          spent,
          writes[at + 2] as string,
          writes[at + 3] as string,
          writes[at + 4] as number,
        );
        return at + 5;
      default:
        // A malformed batch must not commit half of itself: throwing rolls the transaction back.
        throw new Error(`unknown batch write tag ${String(tag)} at ${at}`);
    }
  };
  // Each batch as if it were committed alone: its writes, then its sweep.
  const commit = db.transaction((batches: readonly Batch[]) => {
    const refused: string[] = [];
    const spent: SpentByWindow = new Map();
    const minutes = new Map<string, MinuteRow>();
    for (const batch of batches) {
      const { writes } = batch;
      for (let at = 0; at < writes.length; ) at = apply(writes, at, refused, spent, minutes);
      if (batch.sweepUpToMs !== null) {
        keepExpired.run(batch.sweepUpToMs);
        deleteExpired.run(batch.sweepUpToMs);
      }
    }
    for (const { rung, windowKey, microUsd } of spent.values()) {
      addSpent.run(rung, windowKey, microUsd);
    }
    for (const row of minutes.values()) addToMinute.run(...row);
    return refused;
  });
  return (batches) => commit.immediate(batches);
}
