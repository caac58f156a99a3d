import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
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
import type { BatchWrite } from "./sqlite-batch";
import { type CommitThread, inlineCommitThread, startCommitWorker } from "./sqlite-commit-thread";
import { claimOwnerLock, type OwnerLock } from "./sqlite-owner-lock";
import { type RecordRow, sqliteSchema, toRecord } from "./sqlite-schema";
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

/** One queued write: applied in memory already, made durable by the next batch. */
interface PendingWrite {
  /** What the batch transaction writes for it; absent for a pure wait. */
  write?: BatchWrite;
  /** Reverts the in-memory effect when the batch fails. */
  undo?: () => void;
  /** Reservation id this write finishes (settle, release), cleared from `pendingFinished`. */
  finishes?: string;
  /** Reservation id this write inserts, held in `pendingReserved` until it is on disk. */
  reserves?: string;
  /** Called, before anything of its batch resolves, when the file already knew `reserves`. */
  refuse?: () => void;
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
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.exec(sqliteSchema);
    committer =
      path === ":memory:" || options.commitThread === "main"
        ? inlineCommitThread(db)
        : startCommitWorker({ path, synchronous, busyTimeoutMs });
  } catch (cause) {
    lock?.release();
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot open the SQLite spend store ${path}`,
      cause,
    });
  }

  const selectReservation = db.prepare<[string], { state: string }>(
    "SELECT state FROM spend_reservation WHERE id = ?",
  );
  const selectRecordExists = db.prepare<[string], { one: number }>(
    "SELECT 1 AS one FROM spend_record WHERE reservation_id = ?",
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

  const book = createWindowBook();
  const windowState = book.state;

  // Load what is durable: every window's spend and every reservation still marked live (one
  // that has expired meanwhile is dropped by the first read, as at run time).
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
       FROM spend_reservation WHERE state = 'live'`,
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
  /** Settled or released: pending in memory, or on disk (a record, or a released row). */
  const isFinished = (id: string): boolean =>
    pendingFinished.has(id) ||
    selectRecordExists.get(id) !== undefined ||
    selectReservation.get(id)?.state === "released";
  /**
   * Seen before in memory: settled, released or reserved by a batch not committed yet. An id
   * known only to the file is refused by the batch that would have written it (see
   * `prepareBatchCommitter`), so admission never reads the file.
   */
  const isPending = (id: string): boolean => pendingFinished.has(id) || pendingReserved.has(id);

  let queue: PendingWrite[] = [];
  let scheduled = false;
  /** Batches handed to the commit thread and not yet answered. */
  let inFlight = 0;
  /** Settles once every batch handed over so far is answered (whatever the answer). */
  let answered: Promise<void> = Promise.resolve();
  let closed = false;
  /** Set when the commit thread is gone: nothing can be made durable any more. */
  let broken: SpendLedgerError | null = null;
  let writesCommitted = 0;

  const settled = (batch: PendingWrite[]) => {
    for (const pending of batch) {
      if (pending.finishes !== undefined) pendingFinished.delete(pending.finishes);
      if (pending.reserves !== undefined) pendingReserved.delete(pending.reserves);
    }
  };

  const committed = (batch: PendingWrite[], writes: number, refused: readonly string[]) => {
    writesCommitted += writes;
    if (refused.length > 0) {
      const known = new Set(refused);
      for (const pending of batch) {
        if (pending.reserves !== undefined && known.has(pending.reserves)) {
          writesCommitted -= 1;
          pending.refuse?.();
        }
      }
    }
    settled(batch);
    for (const pending of batch) pending.resolve();
  };

  const failed = (batch: PendingWrite[], sweepUpToMs: number | null, cause: unknown) => {
    // Nothing of the batch is on disk: take its effects back out of memory, newest first, so
    // memory agrees with the file again, and fail every operation in it. Effects of writes
    // queued behind it are additive and stay correct: none of them finishes a reservation of
    // this batch, since a reservation is handed to its caller only after it committed.
    if (sweepUpToMs !== null) expiredUpToMs = Math.max(expiredUpToMs ?? 0, sweepUpToMs);
    for (let index = batch.length - 1; index >= 0; index--) batch[index]!.undo?.();
    settled(batch);
    const error = new SpendLedgerError({
      code: "store_failure",
      message: `SQLite spend store ${path}: committing ${batch.length} writes failed`,
      cause,
    });
    for (const pending of batch) pending.reject(error);
    if (committer.failure() !== null && broken === null) {
      // The commit thread died: whether this batch reached the disk is unknown, so the store
      // refuses everything from now on rather than admit against books it can no longer trust.
      broken = new SpendLedgerError({
        code: "store_failure",
        message: `SQLite spend store ${path}: the commit thread stopped`,
        cause: committer.failure(),
      });
      const rest = queue;
      queue = [];
      for (let index = rest.length - 1; index >= 0; index--) rest[index]!.undo?.();
      settled(rest);
      for (const pending of rest) pending.reject(broken);
    }
  };

  /**
   * Hands what is queued to the commit thread as the next batch, without waiting for the
   * batches before it: they commit in order (see {@link CommitThread}).
   */
  const dispatch = () => {
    scheduled = false;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    const writes: BatchWrite[] = [];
    for (const pending of batch) if (pending.write) writes.push(pending.write);
    const sweepUpToMs = expiredUpToMs;
    expiredUpToMs = null;
    if (writes.length === 0 && sweepUpToMs === null) {
      // Only waits: they resolve once everything handed over before them is answered.
      const resolveAll = () => {
        for (const pending of batch) pending.resolve();
      };
      if (inFlight === 0) resolveAll();
      else void answered.then(resolveAll);
      return;
    }
    inFlight += 1;
    answered = committer.commit({ writes, sweepUpToMs }).then(
      (refused) => {
        inFlight -= 1;
        committed(batch, writes.length, refused);
      },
      (cause: unknown) => {
        inFlight -= 1;
        failed(batch, sweepUpToMs, cause);
      },
    );
  };

  const push = (pending: PendingWrite) => {
    queue.push(pending);
    if (!scheduled) {
      scheduled = true;
      setImmediate(dispatch);
    }
  };

  const unusable = (): SpendLedgerError | null => broken ?? (closed ? closedError(path) : null);

  /**
   * Queues a write for the next batch; resolves once it is durable with `value`, or with what
   * `value()` returns then.
   */
  const enqueue = <T>(
    value: T | (() => T),
    write?: Omit<PendingWrite, "resolve" | "reject">,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) =>
      push({
        ...write,
        resolve: () => resolve(typeof value === "function" ? (value as () => T)() : value),
        reject,
      }),
    );

  const reserve = (request: StoreReserveRequest): Promise<StoreReserveResult> => {
    const refusal = unusable();
    if (refusal) return Promise.reject(refusal);
    const { reservationId: id, rung, windowKey, amountMicroUsd: amount } = request;
    const state = windowState(rung, windowKey);
    expire(state, request.nowMs);
    // Held already: the answer is the first reserve's, known once its batch is answered.
    if (state.live.has(id)) {
      return enqueue(() => ({ admitted: state.live.has(id), ...totalsOf(state) }));
    }
    if (isPending(id)) return enqueue({ admitted: false, ...totalsOf(state) });
    if (!fitsBudget(state, amount, request.budgetMicroUsd)) {
      // A refusal writes nothing and depends only on durable or queued state.
      return Promise.resolve({ admitted: false, ...totalsOf(state) });
    }
    holdReservation(state, id, { amountMicroUsd: amount, expiresAtMs: request.expiresAtMs });
    pendingReserved.add(id);
    const result: StoreReserveResult = { admitted: true, ...totalsOf(state) };
    return enqueue(result, {
      reserves: id,
      write: {
        kind: "reserve",
        id,
        rung,
        windowKey,
        amountMicroUsd: amount,
        expiresAtMs: request.expiresAtMs,
      },
      undo: () => {
        takeReservation(state, id);
      },
      refuse: () => {
        takeReservation(state, id);
        Object.assign(result, { admitted: false, ...totalsOf(state) });
      },
    });
  };

  /** Takes a live reservation out of memory; returns an undo that puts it back. */
  const takeLive = (state: WindowState, id: string): (() => void) | null => {
    const held = takeReservation(state, id);
    return held ? () => holdReservation(state, id, held) : null;
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
      return enqueue({ booked: false, ...totalsOf(state) });
    }
    const putBack = takeLive(state, id);
    state.spentMicroUsd += record.costMicroUsd;
    pendingFinished.add(id);
    return enqueue(
      { booked: true, ...totalsOf(state) },
      {
        finishes: id,
        write: { kind: "settle", id, record },
        undo: () => {
          state.spentMicroUsd -= record.costMicroUsd;
          putBack?.();
        },
      },
    );
  };

  const release = (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
    const refusal = unusable();
    if (refusal) return Promise.reject(refusal);
    const { reservationId: id, rung, windowKey, nowMs } = request;
    const state = windowState(rung, windowKey);
    expire(state, nowMs);
    if (!state.live.has(id) && isFinished(id)) {
      return enqueue({ released: false, ...totalsOf(state) });
    }
    const putBack = takeLive(state, id);
    pendingFinished.add(id);
    return enqueue(
      { released: putBack !== null, ...totalsOf(state) },
      {
        finishes: id,
        write: { kind: "release", id, rung, windowKey, nowMs },
        undo: () => putBack?.(),
      },
    );
  };

  /** Resolves once nothing is queued or in flight (a failed batch counts as done). */
  const drain = (): Promise<void> =>
    queue.length === 0 && inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => push({ resolve, reject: () => resolve() }));

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
        })
        .map(toRecord),
    commitStats: () => ({ batches: committer.transactions(), writes: writesCommitted }),
    flush: () => {
      if (broken) return Promise.reject(broken);
      return queue.length === 0 && inFlight === 0 ? Promise.resolve() : enqueue(undefined);
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
