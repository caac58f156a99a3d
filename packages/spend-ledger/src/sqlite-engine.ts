import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import type { MicroUsd } from "./money";
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
import { claimOwnerLock, type OwnerLock } from "./sqlite-owner-lock";
import { type RecordRow, sqliteSchema, toRecord } from "./sqlite-schema";

/** How an engine opens its file. */
export interface SqliteEngineOptions {
  path: string;
  synchronous: "full" | "normal";
  busyTimeoutMs: number;
}

interface LiveReservation {
  amountMicroUsd: MicroUsd;
  expiresAtMs: number;
}

interface WindowState {
  spentMicroUsd: MicroUsd;
  reservedMicroUsd: MicroUsd;
  live: Map<string, LiveReservation>;
  /** Earliest `expiresAtMs` among `live`, so expiry scans only when something can expire. */
  nextExpiryMs: number;
}

/** Batches and writes committed since the file was opened in this process. */
export interface SqliteCommitStats {
  /** Committed transactions, one fsync each under `synchronous=FULL`. */
  batches: number;
  /** Reserve, settle and release writes they carried. */
  writes: number;
}

/** One queued write: applied in memory already, made durable by the next batch. */
interface PendingWrite {
  /** Runs its statements inside the batch transaction; absent for a pure wait. */
  write?: () => void;
  /** Reverts the in-memory effect when the batch fails. */
  undo?: () => void;
  /** Reservation id this write finishes (settle, release), cleared from `pendingFinished`. */
  finishes?: string;
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
  /** Commits what is queued, closes the file and gives up the owner lock. */
  close(): void;
}

/**
 * Opens a spend file with group commit. Every decision (admission against spent + reserved,
 * idempotency, expiry) is taken synchronously against the in-memory state, which this process
 * alone may change (the owner lock); the write is queued, and all writes queued in one
 * event-loop turn are committed in ONE `BEGIN IMMEDIATE` transaction, one fsync under
 * `synchronous=FULL`. Each operation's promise resolves only after its batch is durable, so a
 * reservation the caller holds is on disk before the upstream is called, and a settle that
 * resolved survives SIGKILL and power loss. A crash before a settle's batch commits leaves the
 * durable reservation live until it expires: the books over-count for a while, never under-count.
 */
export function openSqliteEngine(options: SqliteEngineOptions): SqliteEngine {
  const { path, synchronous, busyTimeoutMs } = options;
  // An in-memory database is private to its connection: nothing to guard.
  const lock: OwnerLock | null = path === ":memory:" ? null : claimOwnerLock(path);
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
    db.exec(sqliteSchema);
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

  const windows = new Map<string, WindowState>();
  const windowState = (rung: string, windowKey: string): WindowState => {
    const key = `${rung}\u0000${windowKey}`;
    let state = windows.get(key);
    if (!state) {
      state = {
        spentMicroUsd: 0,
        reservedMicroUsd: 0,
        live: new Map(),
        nextExpiryMs: Number.POSITIVE_INFINITY,
      };
      windows.set(key, state);
    }
    return state;
  };

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
    state.live.set(row.id, { amountMicroUsd: row.amount, expiresAtMs: row.expires });
    state.reservedMicroUsd += row.amount;
    state.nextExpiryMs = Math.min(state.nextExpiryMs, row.expires);
  }

  /** Latest expiry instant seen in memory whose durable rows are not yet marked expired. */
  let expiredUpToMs: number | null = null;
  const expire = (state: WindowState, nowMs: number): void => {
    if (state.nextExpiryMs > nowMs) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, reservation] of state.live) {
      if (reservation.expiresAtMs <= nowMs) {
        state.live.delete(id);
        state.reservedMicroUsd -= reservation.amountMicroUsd;
        expiredUpToMs = Math.max(expiredUpToMs ?? 0, reservation.expiresAtMs);
      } else if (reservation.expiresAtMs < next) {
        next = reservation.expiresAtMs;
      }
    }
    state.nextExpiryMs = next;
  };

  const totalsOf = (state: WindowState): WindowTotals => ({
    spentMicroUsd: state.spentMicroUsd,
    reservedMicroUsd: state.reservedMicroUsd,
  });

  /** Ids settled or released in memory whose batch has not committed yet. */
  const pendingFinished = new Set<string>();
  /** Settled or released: pending in memory, or on disk (a record, or a released row). */
  const isFinished = (id: string): boolean =>
    pendingFinished.has(id) ||
    selectRecordExists.get(id) !== undefined ||
    selectReservation.get(id)?.state === "released";

  let queue: PendingWrite[] = [];
  let scheduled = false;
  let closed = false;
  const stats: SqliteCommitStats = { batches: 0, writes: 0 };

  const commitBatch = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    const sweepUpTo = expiredUpToMs;
    expiredUpToMs = null;
    try {
      db.transaction(() => {
        for (const pending of batch) pending.write?.();
        if (sweepUpTo !== null) expireStale.run(sweepUpTo);
      }).immediate();
    } catch (cause) {
      // Nothing of the batch is on disk: take its effects back out of memory, newest first, so
      // memory agrees with the file again, and fail every operation in it.
      if (sweepUpTo !== null) expiredUpToMs = Math.max(expiredUpToMs ?? 0, sweepUpTo);
      for (let index = batch.length - 1; index >= 0; index--) {
        const pending = batch[index]!;
        pending.undo?.();
        if (pending.finishes !== undefined) pendingFinished.delete(pending.finishes);
      }
      const error = new SpendLedgerError({
        code: "store_failure",
        message: `SQLite spend store ${path}: committing ${batch.length} writes failed`,
        cause,
      });
      for (const pending of batch) pending.reject(error);
      return;
    }
    stats.batches += 1;
    for (const pending of batch) {
      if (pending.write) stats.writes += 1;
      if (pending.finishes !== undefined) pendingFinished.delete(pending.finishes);
      pending.resolve();
    }
  };

  /** Queues a write for the batch of this event-loop turn; resolves with `value` once durable. */
  const enqueue = <T>(value: T, write?: Omit<PendingWrite, "resolve" | "reject">): Promise<T> => {
    if (closed) return Promise.reject(closedError(path));
    return new Promise<T>((resolve, reject) => {
      queue.push({ ...write, resolve: () => resolve(value), reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(commitBatch);
      }
    });
  };

  const reserve = (request: StoreReserveRequest): Promise<StoreReserveResult> => {
    if (closed) return Promise.reject(closedError(path));
    const { reservationId: id, rung, windowKey, amountMicroUsd: amount } = request;
    const state = windowState(rung, windowKey);
    expire(state, request.nowMs);
    const held = state.live.get(id);
    if (held) return enqueue({ admitted: true, ...totalsOf(state) });
    if (isFinished(id) || selectReservation.get(id) !== undefined) {
      return enqueue({ admitted: false, ...totalsOf(state) });
    }
    if (
      request.budgetMicroUsd !== null &&
      state.spentMicroUsd + state.reservedMicroUsd + amount > request.budgetMicroUsd
    ) {
      // A refusal writes nothing and depends only on durable or queued state.
      return Promise.resolve({ admitted: false, ...totalsOf(state) });
    }
    state.live.set(id, { amountMicroUsd: amount, expiresAtMs: request.expiresAtMs });
    state.reservedMicroUsd += amount;
    state.nextExpiryMs = Math.min(state.nextExpiryMs, request.expiresAtMs);
    return enqueue(
      { admitted: true, ...totalsOf(state) },
      {
        write: () => insertReservation.run(id, rung, windowKey, amount, request.expiresAtMs),
        undo: () => {
          if (state.live.delete(id)) state.reservedMicroUsd -= amount;
        },
      },
    );
  };

  /** Takes a live reservation out of memory; returns an undo that puts it back. */
  const takeLive = (state: WindowState, id: string): (() => void) | null => {
    const held = state.live.get(id);
    if (!held) return null;
    state.live.delete(id);
    state.reservedMicroUsd -= held.amountMicroUsd;
    return () => {
      state.live.set(id, held);
      state.reservedMicroUsd += held.amountMicroUsd;
      state.nextExpiryMs = Math.min(state.nextExpiryMs, held.expiresAtMs);
    };
  };

  const settle = (request: StoreSettleRequest): Promise<StoreSettleResult> => {
    if (closed) return Promise.reject(closedError(path));
    const { record } = request;
    const id = request.reservationId;
    const state = windowState(request.rung, request.windowKey);
    expire(state, request.nowMs);
    if (isFinished(id)) return enqueue({ booked: false, ...totalsOf(state) });
    const putBack = takeLive(state, id);
    state.spentMicroUsd += record.costMicroUsd;
    pendingFinished.add(id);
    return enqueue(
      { booked: true, ...totalsOf(state) },
      {
        finishes: id,
        write: () => {
          markSettled.run(id);
          addSpent.run(record.rung, record.windowKey, record.costMicroUsd);
          insertRecord.run({ ...record, timeMs: Date.parse(record.time) });
        },
        undo: () => {
          state.spentMicroUsd -= record.costMicroUsd;
          putBack?.();
        },
      },
    );
  };

  const release = (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
    if (closed) return Promise.reject(closedError(path));
    const { reservationId: id, rung, windowKey, nowMs } = request;
    const state = windowState(rung, windowKey);
    expire(state, nowMs);
    if (isFinished(id)) return enqueue({ released: false, ...totalsOf(state) });
    const putBack = takeLive(state, id);
    pendingFinished.add(id);
    return enqueue(
      { released: putBack !== null, ...totalsOf(state) },
      {
        finishes: id,
        write: () => markReleased.run(id, rung, windowKey, nowMs),
        undo: () => putBack?.(),
      },
    );
  };

  return {
    database: db,
    reserve,
    settle,
    release,
    totals(rung, windowKey, nowMs) {
      const state = windows.get(`${rung}\u0000${windowKey}`);
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
    commitStats: () => ({ ...stats }),
    flush: () => (queue.length === 0 ? Promise.resolve() : enqueue(undefined)),
    close() {
      if (closed) return;
      commitBatch();
      closed = true;
      try {
        if (db.open) db.close();
      } finally {
        lock?.release();
      }
    },
  };
}

function closedError(path: string): SpendLedgerError {
  return new SpendLedgerError({
    code: "store_failure",
    message: `SQLite spend store ${path} is closed`,
  });
}
