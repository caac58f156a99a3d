import type Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import { pruneInSteps } from "./prune-steps";
import { minuteOf } from "./spend-minutes";
import {
  type SpendRecord,
  type SpendRecordQuery,
  type SpendSummary,
  summaryOfGroups,
} from "./spend-record";
import type {
  StorePruneResult,
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";
import { pushBook, pushRelease, pushReserve, pushSettle } from "./sqlite-batch";
import { createGroupCommit, type SqliteCommitStats } from "./sqlite-group-commit";
import { PRUNE_STEP_ROWS } from "./sqlite-prune";
import {
  loadSpendBook,
  openSpendFile,
  prepareSpendReads,
  type SqliteEngineOptions,
} from "./sqlite-spend-file";
import {
  createWindowBook,
  expireReservations,
  fitsBudget,
  holdReservation,
  takeReservation,
  totalsOf,
  type WindowState,
} from "./window-book";

/** The single owner of one SQLite spend file in this process; shared by its store handles. */
export interface SqliteEngine {
  readonly database: Database.Database;
  reserve(request: StoreReserveRequest): Promise<StoreReserveResult>;
  settle(request: StoreSettleRequest): Promise<StoreSettleResult>;
  release(request: StoreReleaseRequest): Promise<StoreReleaseResult>;
  totals(rung: string, windowKey: string, nowMs: number): WindowTotals;
  records(query: SpendRecordQuery): SpendRecord[];
  summary(query: SpendRecordQuery): SpendSummary;
  flush(): Promise<void>;
  /** See `SpendStore.prune`: steps of the commit thread, between the batches. */
  prune(beforeMs: number, signal?: AbortSignal): Promise<StorePruneResult>;
  commitStats(): SqliteCommitStats;
  /** Commits what is queued, stops the commit thread, closes the file, gives up the owner lock. */
  close(): Promise<void>;
}

/**
 * Opens a spend file with group commit. Every decision (admission against spent + reserved,
 * idempotency, expiry) is taken synchronously against the in-memory state, which this process
 * alone may change (the owner lock); the write is queued, everything queued in one event-loop
 * turn is handed to the commit thread as one batch, and every batch that arrives while a
 * transaction runs is committed in the next ONE `BEGIN IMMEDIATE` transaction, one fsync under
 * `synchronous=FULL`. The transaction runs in a worker thread that owns the write connection,
 * so the event loop keeps admitting while the disk works; batches commit in the order they were
 * decided, so a settle never commits before its reservation. Each operation's promise resolves
 * only after its batch is durable, so a reservation the caller holds is on disk before the
 * upstream is called, and a settle that resolved survives SIGKILL and power loss. A crash
 * before a settle's batch commits leaves the durable reservation live until it expires: the
 * books over-count for a while, never under-count.
 */
export function openSqliteEngine(options: SqliteEngineOptions): SqliteEngine {
  const { path } = options;
  const { lock, db, committer } = openSpendFile(options);
  const reads = prepareSpendReads(db);

  const book = createWindowBook();
  const windowState = book.state;
  loadSpendBook(db, windowState);

  const commit = createGroupCommit(path, committer);
  const { pendingFinished, pendingReserved, markExpired, current, queue, afterBatch } = commit;
  const expire = (state: WindowState, nowMs: number): void =>
    expireReservations(state, nowMs, markExpired);

  /**
   * Settled or released: pending in memory, or on disk (a record, or an id released or settled
   * without a record). An expired id is not finished: a settle after expiry still books.
   */
  const isFinished = (id: string): boolean => pendingFinished.has(id) || reads.isFinishedOnDisk(id);
  /**
   * Seen before in memory: settled, released or reserved by a batch not committed yet. An id
   * known only to the file is refused by the batch that would have written it (see
   * `prepareBatchCommitter`), so admission never reads the file.
   */
  const isPending = (id: string): boolean => pendingFinished.has(id) || pendingReserved.has(id);

  let closed = false;
  const unusable = (): SpendLedgerError | null =>
    commit.broken() ?? (closed ? closedError(path) : null);

  const reserve = (request: StoreReserveRequest): Promise<StoreReserveResult> => {
    const refusal = unusable();
    if (refusal) return Promise.reject(refusal);
    const { reservationId: id, rung, windowKey, amountMicroUsd: amount, expiresAtMs } = request;
    const state = windowState(rung, windowKey);
    expire(state, request.nowMs);
    // Held already: the answer is the first reserve's, known once its batch is answered.
    if (state.live.has(id)) {
      return current(true).answer.then(() => ({
        admitted: state.live.has(id),
        ...totalsOf(state),
      }));
    }
    if (isPending(id)) return afterBatch({ admitted: false, ...totalsOf(state) });
    if (!fitsBudget(state, amount, request.budgetMicroUsd)) {
      // A refusal writes nothing and depends only on durable or queued state.
      return Promise.resolve({ admitted: false, ...totalsOf(state) });
    }
    holdReservation(state, id, { amountMicroUsd: amount, expiresAtMs });
    pendingReserved.add(id);
    const result: StoreReserveResult = {
      admitted: true,
      spentMicroUsd: state.spentMicroUsd,
      reservedMicroUsd: state.reservedMicroUsd,
    };
    const batch = current(true);
    pushReserve(batch.writes, id, rung, windowKey, amount, expiresAtMs);
    queue(batch, "reserve", id, state, undefined, 0, result);
    return batch.answer.then(() => result);
  };

  const settle = (request: StoreSettleRequest): Promise<StoreSettleResult> => {
    const refusal = unusable();
    if (refusal) return Promise.reject(refusal);
    const { record } = request;
    const id = request.reservationId;
    const state = windowState(request.rung, request.windowKey);
    expire(state, request.nowMs);
    // A reservation live in memory is finished neither in memory nor on disk: no reads needed.
    if (!state.live.has(id) && isFinished(id)) {
      return afterBatch({ booked: false, ...totalsOf(state) }, false);
    }
    const held = takeReservation(state, id);
    state.spentMicroUsd += record.costMicroUsd;
    pendingFinished.add(id);
    const result: StoreSettleResult = {
      booked: true,
      spentMicroUsd: state.spentMicroUsd,
      reservedMicroUsd: state.reservedMicroUsd,
    };
    const batch = current(false);
    if (request.keepRecord === false) {
      pushBook(batch.writes, id, request.rung, request.windowKey, record.costMicroUsd);
    } else {
      pushSettle(batch.writes, id, record);
    }
    queue(batch, "settle", id, state, held, record.costMicroUsd, null);
    return batch.answer.then(() => result);
  };

  const release = (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
    const refusal = unusable();
    if (refusal) return Promise.reject(refusal);
    const { reservationId: id, rung, windowKey, nowMs } = request;
    const state = windowState(rung, windowKey);
    expire(state, nowMs);
    if (!state.live.has(id) && isFinished(id)) {
      return afterBatch({ released: false, ...totalsOf(state) }, false);
    }
    const held = takeReservation(state, id);
    pendingFinished.add(id);
    const result: StoreReleaseResult = { released: held !== undefined, ...totalsOf(state) };
    const batch = current(false);
    pushRelease(batch.writes, id);
    queue(batch, "release", id, state, held, 0, null);
    return batch.answer.then(() => result);
  };

  let closing: Promise<void> | null = null;
  return {
    database: db,
    reserve,
    settle,
    release,
    totals(rung, windowKey, nowMs) {
      const state = book.peek(rung, windowKey);
      if (!state) return { spentMicroUsd: 0, reservedMicroUsd: 0 };
      expire(state, nowMs);
      return totalsOf(state);
    },
    records: (query) => reads.records(query),
    summary: (query) => summaryOfGroups(reads.summary(query)),
    commitStats: () => commit.commitStats(),
    flush: () => commit.flush(),
    async prune(beforeMs, signal) {
      const refusal = unusable();
      if (refusal) throw refusal;
      try {
        const pruned = await pruneInSteps(
          (limit) => committer.pruneStep(beforeMs, limit),
          PRUNE_STEP_ROWS,
          signal,
        );
        // Every ended window the steps could take is off the disk: off the books too, so they
        // read what a reopened file would. A prune stopped early leaves them for the next one.
        if (!signal?.aborted) book.forgetEnded(minuteOf(beforeMs), markExpired);
        return pruned;
      } catch (cause) {
        throw new SpendLedgerError({
          code: "store_failure",
          message: `SQLite spend store ${path}: pruning the history failed`,
          cause,
        });
      }
    },
    close() {
      closing ??= (async () => {
        closed = true;
        try {
          await commit.drain();
          await committer.close();
        } finally {
          try {
            if (db.open) db.close();
          } finally {
            // Only now, with the write connection closed, may another process take the file.
            lock?.release();
          }
        }
      })();
      return closing;
    },
  };
}

/** The `store_failure` of an operation on a closed SQLite spend store at `path`. */
export function closedError(path: string): SpendLedgerError {
  return new SpendLedgerError({
    code: "store_failure",
    message: `SQLite spend store ${path} is closed`,
  });
}
