import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import { minuteSpans } from "./spend-minutes";
import type { RecordGroup, SpendRecord, SpendRecordQuery } from "./spend-record";
import { type CommitThread, inlineCommitThread, startCommitWorker } from "./sqlite-commit-thread";
import { claimOwnerLock, type OwnerLock } from "./sqlite-owner-lock";
import { prepareSchema, type RecordRow, toRecord } from "./sqlite-schema";
import { holdReservation, type WindowState } from "./window-book";

/** How an engine opens its file. */
export interface SqliteEngineOptions {
  path: string;
  synchronous: "full" | "normal";
  busyTimeoutMs: number;
  /**
   * Where transactions are committed: `"worker"` (a worker thread that owns the write
   * connection, so the fsync never blocks the event loop) or `"main"` (this thread). A
   * `:memory:` database is always committed on this thread.
   */
  commitThread: "worker" | "main";
}

/** A spend file opened by its owner in this process. */
interface SpendFile {
  /** The owner lock; null for `:memory:`, which is private to its connection. */
  lock: OwnerLock | null;
  /** This thread's connection: it created the tables, loads the totals and answers reads. */
  db: Database.Database;
  committer: CommitThread;
}

/**
 * Takes the file's owner lock, opens and migrates it, and starts its commit thread.
 *
 * @throws SpendLedgerError `store_locked` when another process owns the file, `store_failure`
 *   when it cannot be opened or migrated (the lock is given back)
 */
export function openSpendFile(options: SqliteEngineOptions): SpendFile {
  const { path, synchronous, busyTimeoutMs } = options;
  // An in-memory database is private to its connection: nothing to guard.
  const lock: OwnerLock | null = path === ":memory:" ? null : claimOwnerLock(path);
  try {
    // This thread's connection creates the tables, loads the totals and answers reads.
    const db = new Database(path, { timeout: busyTimeoutMs });
    // First, so a file of a newer layout is refused before anything of it changes.
    prepareSchema(db, path);
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
    const committer =
      path === ":memory:" || options.commitThread === "main"
        ? inlineCommitThread(db)
        : startCommitWorker({ path, synchronous, busyTimeoutMs });
    return { lock, db, committer };
  } catch (cause) {
    lock?.release();
    if (SpendLedgerError.isInstance(cause)) throw cause;
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot open the SQLite spend store ${path}`,
      cause,
    });
  }
}

/**
 * Loads what is durable into the window states `windowState` gives (created empty on first
 * use): every window's spend and every live reservation (one that has expired meanwhile is
 * dropped by the first read, as at run time).
 */
export function loadSpendBook(
  db: Database.Database,
  windowState: (rung: string, windowKey: string) => WindowState,
): void {
  for (const row of db
    .prepare<[], { rung: string; window_key: string; spent: number }>(
      "SELECT rung, window_key, spent_micro_usd AS spent FROM spend_window",
    )
    .all()) {
    windowState(row.rung, row.window_key).spentMicroUsd = row.spent;
  }
  for (const row of db
    .prepare<[], { id: string; rung: string; window_key: string; amount: number; expires: number }>(
      `SELECT id, rung, window_key, amount_micro_usd AS amount, expires_at_ms AS expires
       FROM spend_live`,
    )
    .all()) {
    const state = windowState(row.rung, row.window_key);
    holdReservation(state, row.id, { amountMicroUsd: row.amount, expiresAtMs: row.expires });
  }
}

/** What the owner reads from the file on this thread. */
interface SpendFileReads {
  /** True when the file knows `id` as settled (a record, or settled without one) or released. */
  isFinishedOnDisk(id: string): boolean;
  /** Settled records matching `query`, in time order. */
  records(query: SpendRecordQuery): SpendRecord[];
  /**
   * The sums of the records matching `query`, per (rung, connection, model), some groups
   * possibly more than once (see `minuteSpans`); `summaryOfGroups` adds them up.
   */
  summary(query: SpendRecordQuery): RecordGroup[];
}

/** Each filter of a {@link SpendRecordQuery}, as its condition on `spend_record`. */
const FILTERS = [
  ["sinceMs", "time_ms >= @sinceMs"],
  ["untilMs", "time_ms < @untilMs"],
  ["rung", "rung = @rung"],
  ["clientKeyId", "client_key_id = @clientKeyId"],
  ["windowKey", "window_key = @windowKey"],
] as const;

/**
 * The `WHERE` clause of `query` on `spend_record` (or, given {@link MINUTE_FILTERS}, on
 * `spend_minute`): a condition for each filter it sets and none for the others, with their
 * parameters, and `set`, one bit per filter set (the clause's shape).
 * A bound written as `(@sinceMs IS NULL OR time_ms >= @sinceMs)` would fit every query in one
 * statement, but SQLite cannot seek such a bound on `spend_record_time` and scans every record
 * ever booked; a plain `time_ms >= @sinceMs` reads the time range alone.
 */
export function recordFilter(
  query: SpendRecordQuery,
  filters: Filters = FILTERS,
): {
  where: string;
  parameters: Record<string, unknown>;
  set: number;
} {
  let set = 0;
  const conditions: string[] = [];
  const parameters: Record<string, unknown> = {};
  filters.forEach(([field, condition], index) => {
    if (query[field] === undefined) return;
    set |= 1 << index;
    conditions.push(condition);
    parameters[field] = query[field];
  });
  const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
  return { where, parameters, set };
}

/**
 * Each filter of a {@link SpendRecordQuery}, as its condition on `spend_minute`: the time
 * bounds are whole minutes there (see `minuteSpans`).
 */
export const MINUTE_FILTERS = [
  ["sinceMs", "minute_ms >= @sinceMs"],
  ["untilMs", "minute_ms < @untilMs"],
  ["rung", "rung = @rung"],
  ["clientKeyId", "has_key = 1 AND client_key_id = @clientKeyId"],
  ["windowKey", "window_key = @windowKey"],
] as const;

/** The filters of a query, as their conditions on one table. */
type Filters = typeof FILTERS | typeof MINUTE_FILTERS;

/** Runs `sql(where)` for a query (see {@link recordFilter}): one statement per shape, prepared on first use. */
function queryByFilters<Row>(
  db: Database.Database,
  sql: (where: string) => string,
  filters: Filters = FILTERS,
): (query: SpendRecordQuery) => Row[] {
  const statements = new Map<number, Database.Statement<[Record<string, unknown>], Row>>();
  return (query) => {
    const { where, parameters, set } = recordFilter(query, filters);
    let statement = statements.get(set);
    if (statement === undefined) {
      statement = db.prepare<[Record<string, unknown>], Row>(sql(where));
      statements.set(set, statement);
    }
    return statement.all(parameters);
  };
}

/** Prepares the owner's reads on `db`. */
export function prepareSpendReads(db: Database.Database): SpendFileReads {
  const selectFinished = db.prepare<[string], { state: string }>(
    "SELECT state FROM spend_finished WHERE id = ?",
  );
  const selectRecordExists = db.prepare<[string], { one: number }>(
    "SELECT 1 AS one FROM spend_record WHERE reservation_id = ?",
  );
  const selectRecords = queryByFilters<RecordRow>(
    db,
    (where) => `SELECT * FROM spend_record ${where} ORDER BY time_ms, rowid`,
  );
  // The same sums from the records (a request a row) and from the minute sums (theirs a row).
  const groupSums = (table: string, requests: string) => (where: string) =>
    `SELECT rung, connection_id AS connectionId, model, ${requests} AS requests,
       SUM(cost_micro_usd) AS costMicroUsd, SUM(input_tokens) AS inputTokens,
       SUM(output_tokens) AS outputTokens, SUM(cached_input_tokens) AS cachedInputTokens,
       SUM(cache_write_tokens) AS cacheWriteTokens
     FROM ${table} ${where} GROUP BY rung, connection_id, model`;
  const selectSums = queryByFilters<RecordGroup>(db, groupSums("spend_record", "COUNT(*)"));
  const selectMinuteSums = queryByFilters<RecordGroup>(
    db,
    groupSums("spend_minute", "SUM(requests)"),
    MINUTE_FILTERS,
  );
  return {
    isFinishedOnDisk(id) {
      if (selectRecordExists.get(id) !== undefined) return true;
      const state = selectFinished.get(id)?.state;
      return state === "released" || state === "settled";
    },
    records: (query) => selectRecords(query).map(toRecord),
    summary(query) {
      const { minutes, records } = minuteSpans(query);
      const groups = minutes === null ? [] : selectMinuteSums(minutes);
      for (const span of records) groups.push(...selectSums(span));
      return groups;
    },
  };
}
