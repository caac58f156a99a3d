import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import { createHandOver, type HandOver } from "./hand-over";
import type { SpendRecord, SpendRecordQuery } from "./spend-record";
import type {
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";
import { type BatchWrites, pushBook, pushRelease, pushReserve, pushSettle } from "./sqlite-batch";
import { type CommitThread, inlineCommitThread, startCommitWorker } from "./sqlite-commit-thread";
import { claimOwnerLock, type OwnerLock } from "./sqlite-owner-lock";
import { prepareSchema, type RecordRow, toRecord } from "./sqlite-schema";
import {
  createWindowBook,
  expireReservations,
  fitsBudget,
  holdReservation,
  type LiveReservation,
  takeReservation,
  totalsOf,
  type WindowState,
} from "./window-book";

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

/** Batches and writes committed since the file was opened in this process. */
export interface SqliteCommitStats {
  /**
   * Committed transactions, one fsync each under `synchronous=FULL`: everything queued in one
   * event-loop turn is one batch, and batches that queued up while a transaction ran share the
   * next one.
   */
  batches: number;
  /** Reserve, settle and release writes they carried. */
  writes: number;
}

/** What a queued write is, for its batch's answer. */
type WriteKind = "reserve" | "settle" | "release";

/**
 * One queued write: applied in memory already, made durable by its batch. Plain data, so the
 * batch's answer finishes or undoes it without a closure per write.
 */
interface QueuedWrite {
  kind: WriteKind;
  /** The reservation it inserts (held in `pendingReserved`) or finishes (`pendingFinished`). */
  id: string;
  state: WindowState;
  /** Settle, release: the live reservation it took off the books, put back on undo. */
  held: LiveReservation | undefined;
  /** Settle: the cost it added to spent, taken back on undo. */
  costMicroUsd: number;
  /** Reserve: its answer, turned into a refusal when the file already knew the id. */
  result: StoreReserveResult | null;
}

/**
 * Everything queued in one event-loop turn: its writes in their wire form, what they did in
 * memory, and one promise for the lot, on which each operation hangs its own answer.
 */
interface QueuedBatch {
  writes: BatchWrites;
  queued: QueuedWrite[];
  /**
   * Resolves once the batch is durable (without writes: once the batches before it are
   * answered); rejects when it did not commit.
   */
  answer: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The single owner of one SQLite spend file in this process; shared by its store handles. */
export interface SqliteEngine {
  readonly database: Database.Database;
  reserve(request: StoreReserveRequest): Promise<StoreReserveResult>;
  settle(request: StoreSettleRequest): Promise<StoreSettleResult>;
  release(request: StoreReleaseRequest): Promise<StoreReleaseResult>;
  totals(rung: string, windowKey: string, nowMs: number): WindowTotals;
  records(query: SpendRecordQuery): SpendRecord[];
  flush(): Promise<void>;
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
  const { path, synchronous, busyTimeoutMs } = options;
  // An in-memory database is private to its connection: nothing to guard.
  const lock: OwnerLock | null = path === ":memory:" ? null : claimOwnerLock(path);
  let db: Database.Database;
  let committer: CommitThread;
  try {
    // This thread's connection creates the tables, loads the totals and answers reads.
    db = new Database(path, { timeout: busyTimeoutMs });
    // First, so a file of a newer layout is refused before anything of it changes.
    prepareSchema(db, path);
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
    committer =
      path === ":memory:" || options.commitThread === "main"
        ? inlineCommitThread(db)
        : startCommitWorker({ path, synchronous, busyTimeoutMs });
  } catch (cause) {
    lock?.release();
    if (SpendLedgerError.isInstance(cause)) throw cause;
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot open the SQLite spend store ${path}`,
      cause,
    });
  }

  const selectFinished = db.prepare<[string], { state: string }>(
    "SELECT state FROM spend_finished WHERE id = ?",
  );
  const selectRecordExists = db.prepare<[string], { one: number }>(
    "SELECT 1 AS one FROM spend_record WHERE reservation_id = ?",
  );
  const selectRecords = db.prepare<
    {
      sinceMs: number | null;
      untilMs: number | null;
      rung: string | null;
      clientKeyId: string | null;
    },
    RecordRow
  >(
    `SELECT * FROM spend_record
     WHERE (@sinceMs IS NULL OR time_ms >= @sinceMs)
       AND (@untilMs IS NULL OR time_ms < @untilMs)
       AND (@rung IS NULL OR rung = @rung)
       AND (@clientKeyId IS NULL OR client_key_id = @clientKeyId)
     ORDER BY time_ms, rowid`,
  );

  const book = createWindowBook();
  const windowState = book.state;

  // Load what is durable: every window's spend and every live reservation (one that has
  // expired meanwhile is dropped by the first read, as at run time).
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

  /** Latest expiry instant seen in memory whose durable rows are not yet marked expired. */
  let expiredUpToMs: number | null = null;
  const markExpired = (reservation: LiveReservation): void => {
    expiredUpToMs = Math.max(expiredUpToMs ?? 0, reservation.expiresAtMs);
  };
  const expire = (state: WindowState, nowMs: number): void =>
    expireReservations(state, nowMs, markExpired);

  /** Ids settled or released in memory whose batch has not committed yet. */
  const pendingFinished = new Set<string>();
  /**
   * Ids reserved in memory whose batch has not committed yet: a reservation that expires in
   * memory before its row is on disk must still refuse its id a second time.
   */
  const pendingReserved = new Set<string>();
  /**
   * Settled or released: pending in memory, or on disk (a record, or an id released or settled
   * without a record). An expired id is not finished: a settle after expiry still books.
   */
  const isFinished = (id: string): boolean => {
    if (pendingFinished.has(id) || selectRecordExists.get(id) !== undefined) return true;
    const state = selectFinished.get(id)?.state;
    return state === "released" || state === "settled";
  };
  /**
   * Seen before in memory: settled, released or reserved by a batch not committed yet. An id
   * known only to the file is refused by the batch that would have written it (see
   * `prepareBatchCommitter`), so admission never reads the file.
   */
  const isPending = (id: string): boolean => pendingFinished.has(id) || pendingReserved.has(id);

  /** The batch being queued into; see `current` for when it is handed to the commit thread. */
  let open: QueuedBatch | null = null;
  /** Batches handed to the commit thread and not yet answered. */
  let inFlight = 0;
  /** Settles once every batch handed over so far is answered (whatever the answer). */
  let answered: Promise<void> = Promise.resolve();
  let closed = false;
  /** Set when the commit thread is gone: nothing can be made durable any more. */
  let broken: SpendLedgerError | null = null;
  let writesCommitted = 0;

  /** Takes a queued write's effects back out of memory. */
  const undo = (write: QueuedWrite): void => {
    if (write.kind === "reserve") {
      takeReservation(write.state, write.id);
      return;
    }
    write.state.spentMicroUsd -= write.costMicroUsd;
    if (write.held) holdReservation(write.state, write.id, write.held);
  };

  /** Its batch is answered: the id is on disk now, or (failed) nowhere. */
  const settled = (write: QueuedWrite): void => {
    if (write.kind === "reserve") pendingReserved.delete(write.id);
    else pendingFinished.delete(write.id);
  };

  /** Undoes `batch`'s writes, newest first, so memory agrees with the file again; fails it. */
  const revert = (batch: QueuedBatch, error: SpendLedgerError): void => {
    const { queued } = batch;
    for (let index = queued.length - 1; index >= 0; index--) undo(queued[index]!);
    for (const write of queued) settled(write);
    batch.reject(error);
  };

  const committed = (batch: QueuedBatch, refused: readonly string[]) => {
    writesCommitted += batch.queued.length;
    const known = refused.length > 0 ? new Set(refused) : null;
    for (const write of batch.queued) {
      if (known !== null && write.kind === "reserve" && known.has(write.id)) {
        // Before anything of the batch resolves: the reserve wrote nothing and holds nothing.
        writesCommitted -= 1;
        takeReservation(write.state, write.id);
        Object.assign(write.result!, { admitted: false, ...totalsOf(write.state) });
      }
      settled(write);
    }
    batch.resolve();
  };

  const failed = (batch: QueuedBatch, sweepUpToMs: number | null, cause: unknown) => {
    // Nothing of the batch is on disk: take its effects back out of memory and fail every
    // operation in it. Effects of writes queued behind it are additive and stay correct: none
    // of them finishes a reservation of this batch, since a reservation is handed to its caller
    // only after it committed.
    if (sweepUpToMs !== null) expiredUpToMs = Math.max(expiredUpToMs ?? 0, sweepUpToMs);
    revert(
      batch,
      new SpendLedgerError({
        code: "store_failure",
        message: `SQLite spend store ${path}: committing ${batch.queued.length} writes failed`,
        cause,
      }),
    );
    if (committer.failure() !== null && broken === null) {
      // The commit thread died: whether this batch reached the disk is unknown, so the store
      // refuses everything from now on rather than admit against books it can no longer trust.
      broken = new SpendLedgerError({
        code: "store_failure",
        message: `SQLite spend store ${path}: the commit thread stopped`,
        cause: committer.failure(),
      });
      const rest = open;
      open = null;
      if (rest) revert(rest, broken);
    }
  };

  /**
   * Hands the turn's batch to the commit thread, without waiting for the batches before it:
   * they commit in order (see {@link CommitThread}).
   */
  const dispatch = () => {
    const batch = open;
    open = null;
    if (batch === null) return;
    const sweepUpToMs = expiredUpToMs;
    expiredUpToMs = null;
    if (batch.writes.length === 0 && sweepUpToMs === null) {
      // Only waits: they resolve once everything handed over before them is answered.
      if (inFlight === 0) batch.resolve();
      else void answered.then(batch.resolve);
      return;
    }
    inFlight += 1;
    answered = committer.commit({ writes: batch.writes, sweepUpToMs }).then(
      (refused) => {
        inFlight -= 1;
        committed(batch, refused);
      },
      (cause: unknown) => {
        inFlight -= 1;
        failed(batch, sweepUpToMs, cause);
      },
    );
  };

  const handOver = createHandOver(dispatch);

  /**
   * The batch being queued into, opened on first use, and handed over as `urgent` asks (see
   * {@link HandOver.request}): a reserve or flush at the end of this turn, a settle or release
   * with the next urgent batch or after SETTLE_DELAY_MS.
   */
  const current = (urgent: boolean): QueuedBatch => {
    if (open === null) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const answer = new Promise<void>((resolveAnswer, rejectAnswer) => {
        resolve = resolveAnswer;
        reject = rejectAnswer;
      });
      open = { writes: [], queued: [], answer, resolve, reject };
    }
    handOver.request(urgent);
    return open;
  };

  /** Notes what a write did in memory, for its batch's answer (its wire form is in `writes`). */
  const queue = (
    batch: QueuedBatch,
    kind: WriteKind,
    id: string,
    state: WindowState,
    held: LiveReservation | undefined,
    costMicroUsd: number,
    result: StoreReserveResult | null,
  ): void => {
    batch.queued.push({ kind, id, state, held, costMicroUsd, result });
  };

  /** Resolves with `value` once the current batch is durable: an answer that writes nothing. */
  const afterBatch = <T>(value: T, urgent = true): Promise<T> =>
    current(urgent).answer.then(() => value);

  const unusable = (): SpendLedgerError | null => broken ?? (closed ? closedError(path) : null);

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

  /** Resolves once nothing is queued or in flight (a failed batch counts as done). */
  const drain = (): Promise<void> =>
    open === null && inFlight === 0 ? Promise.resolve() : afterBatch(undefined).catch(() => {});

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
    records: (query) =>
      selectRecords
        .all({
          sinceMs: query.sinceMs ?? null,
          untilMs: query.untilMs ?? null,
          rung: query.rung ?? null,
          clientKeyId: query.clientKeyId ?? null,
        })
        .map(toRecord),
    commitStats: () => ({ batches: committer.transactions(), writes: writesCommitted }),
    flush: () => {
      if (broken) return Promise.reject(broken);
      return open === null && inFlight === 0 ? Promise.resolve() : afterBatch(undefined);
    },
    close() {
      closing ??= (async () => {
        closed = true;
        try {
          await drain();
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

function closedError(path: string): SpendLedgerError {
  return new SpendLedgerError({
    code: "store_failure",
    message: `SQLite spend store ${path} is closed`,
  });
}
