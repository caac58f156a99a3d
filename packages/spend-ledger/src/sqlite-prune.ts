import type Database from "better-sqlite3";
import { windowEndBoundMs } from "./budget-window";
import { reservationIdFloor } from "./reservation-id";
import { minuteOf } from "./spend-minutes";
import type { StorePruneResult } from "./spend-store";

/**
 * Rows of each kind one prune step deletes at most: a step is one short transaction on the
 * writing connection, so the batches that queue meanwhile wait for it only briefly.
 */
export const PRUNE_STEP_ROWS = 2_000;

/**
 * One step of a prune of the spend file (see `SpendStore.prune`), in one transaction: at most
 * `limit` rows of each kind from before the minute of `beforeMs`. A count below `limit` means
 * nothing of that kind is left to delete.
 */
export type PruneStep = (beforeMs: number, limit: number) => StorePruneResult;

/** Prepares the prune step's statements on the writing connection `db`. */
export function preparePruneStep(db: Database.Database): PruneStep {
  const deleteRecords = db.prepare<[number, number]>(
    `DELETE FROM spend_record WHERE rowid IN
       (SELECT rowid FROM spend_record WHERE time_ms < ? ORDER BY time_ms LIMIT ?)`,
  );
  const deleteMinutes = db.prepare<[number, number]>(
    `DELETE FROM spend_minute
     WHERE (minute_ms, window_key, rung, connection_id, model, has_key, client_key_id) IN
       (SELECT minute_ms, window_key, rung, connection_id, model, has_key, client_key_id
        FROM spend_minute WHERE minute_ms < ? LIMIT ?)`,
  );
  // Only ids of the ledger's own shape (a UUID version 7, its time first, see reservation-id.ts):
  // an id of another shape says nothing of when it was made, and is kept.
  const deleteFinished = db.prepare<[string, number]>(
    `DELETE FROM spend_finished WHERE id IN
       (SELECT id FROM spend_finished WHERE id < ? AND id GLOB '????????-????-7*' LIMIT ?)`,
  );
  const selectWindows = db.prepare<[], { rung: string; windowKey: string }>(
    "SELECT rung, window_key AS windowKey FROM spend_window",
  );
  const selectLive = db.prepare<[string, string, number], { one: number }>(
    `SELECT 1 AS one FROM spend_live
     WHERE rung = ? AND window_key = ? AND expires_at_ms >= ? LIMIT 1`,
  );
  // What is left of an ended window: its total, and reservations that expired unswept (the
  // process that held them stopped, and nothing touched the window since).
  const deleteWindow = db.prepare<[string, string]>(
    "DELETE FROM spend_window WHERE rung = ? AND window_key = ?",
  );
  const deleteExpiredLive = db.prepare<[string, string]>(
    "DELETE FROM spend_live WHERE rung = ? AND window_key = ?",
  );
  const step = db.transaction((beforeMs: number, limit: number): StorePruneResult => {
    const cutoff = minuteOf(beforeMs);
    let windows = 0;
    for (const { rung, windowKey } of selectWindows.all()) {
      if (windows >= limit) break;
      if (windowEndBoundMs(windowKey) > cutoff) continue;
      if (selectLive.get(rung, windowKey, cutoff) !== undefined) continue;
      deleteWindow.run(rung, windowKey);
      deleteExpiredLive.run(rung, windowKey);
      windows += 1;
    }
    return {
      records: deleteRecords.run(cutoff, limit).changes,
      minuteSums: deleteMinutes.run(cutoff, limit).changes,
      finishedIds: deleteFinished.run(reservationIdFloor(cutoff), limit).changes,
      windows,
    };
  });
  return (beforeMs, limit) => step.immediate(beforeMs, limit);
}
