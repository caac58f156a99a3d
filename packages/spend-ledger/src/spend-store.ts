import type { MicroUsd } from "./money";
import type { SpendRecord, SpendRecordQuery, SpendSummary } from "./spend-record";

/**
 * Longest a store lets a settle or release wait for the next reserve to share its write (the
 * SQLite store's batch, the Redis store's script call), in ms. No caller waits for a settle or
 * release (the gateway has answered its client), and until it lands the reservation still
 * counts: the books over-count, never under-count.
 */
export const SETTLE_DELAY_MS = 5;

/** Spent and reserved amounts of one rung in one budget window. */
export interface WindowTotals {
  /** Sum of settled actual costs. */
  spentMicroUsd: MicroUsd;
  /** Sum of live (unsettled, unreleased, unexpired) reservations. */
  reservedMicroUsd: MicroUsd;
}

/** What the ledger asks a store to reserve. */
export interface StoreReserveRequest {
  reservationId: string;
  rung: string;
  windowKey: string;
  amountMicroUsd: MicroUsd;
  /** Admit only if spent + reserved + amount ≤ budget; null admits always (rule B1). */
  budgetMicroUsd: MicroUsd | null;
  /** Epoch ms; reservations with `expiresAtMs ≤ nowMs` are dropped before the check. */
  nowMs: number;
  expiresAtMs: number;
}

/** Outcome of a reservation, with the window's totals right after it. */
export interface StoreReserveResult extends WindowTotals {
  admitted: boolean;
}

/** What the ledger asks a store to book. */
export interface StoreSettleRequest {
  reservationId: string;
  rung: string;
  windowKey: string;
  nowMs: number;
  /** The record to keep; `record.costMicroUsd` is added to the window's spend. */
  record: SpendRecord;
  /**
   * False books `record.costMicroUsd` in the window without keeping the record: a budget scope
   * settled beside its rung, whose settle keeps the request's one record. Default true.
   */
  keepRecord?: boolean;
}

/** Outcome of a settle: `booked` is false when the reservation was already settled or released. */
export interface StoreSettleResult extends WindowTotals {
  booked: boolean;
  /**
   * True when the backend was unreachable and the settle was written to a local journal, to be
   * booked when the backend is back; the totals are then the last ones known.
   */
  journaled?: boolean;
}

/** What the ledger asks a store to release. */
export interface StoreReleaseRequest {
  reservationId: string;
  rung: string;
  windowKey: string;
  nowMs: number;
}

/** Outcome of a release: `released` is true when the reservation was still live. */
export interface StoreReleaseResult extends WindowTotals {
  released: boolean;
}

/**
 * What {@link SpendStore.prune} forgot: how many of each kind of history it deleted. A store
 * that keeps no such thing (or bounds it otherwise) reports 0 for it.
 */
export interface StorePruneResult {
  /** Spend records booked before the cutoff. */
  records: number;
  /** Per-minute sums of minutes before the cutoff (SQLite rows, Redis hash fields). */
  minuteSums: number;
  /**
   * Ids of finished reservations made before the cutoff, kept apart from the records so that a
   * repeated settle or release is recognised (Redis: every id of the windows it took out).
   */
  finishedIds: number;
  /** Budget windows that ended before the cutoff, holding no live reservation: their totals. */
  windows: number;
}

/**
 * Persistence behind a spend ledger. Every store passes the same contract suite. Each write is
 * atomic with respect to every other write on the same data, including from other processes or
 * replicas sharing it: expiring stale reservations, checking the budget and inserting the
 * reservation happen as one step. Settle and release are idempotent per reservation id (a
 * reservation id is finished at most once). Time always comes from the caller (`nowMs`).
 */
export interface SpendStore {
  /** Resolves when the store can serve reads and writes (connections made, state loaded). */
  ready(): Promise<void>;
  reserve(request: StoreReserveRequest): Promise<StoreReserveResult>;
  settle(request: StoreSettleRequest): Promise<StoreSettleResult>;
  release(request: StoreReleaseRequest): Promise<StoreReleaseResult>;
  /**
   * Synchronous totals of one rung and window at `nowMs` (expired reservations excluded); null
   * when the store cannot answer yet (a replicated store before `ready()`).
   */
  totals(rung: string, windowKey: string, nowMs: number): WindowTotals | null;
  /** Settled records in `time` order. */
  records(query: SpendRecordQuery): Promise<SpendRecord[]>;
  /**
   * The sums of the records `records(query)` lists, computed where they are kept, without
   * reading each one into memory; absent means the ledger sums what `records()` returns.
   */
  summary?(query: SpendRecordQuery): Promise<SpendSummary>;
  /**
   * Resolves when every write accepted so far is durable (a store that commits in batches, or
   * journals writes while its backend is away, drains them); absent means every write is durable
   * when its promise resolves.
   */
  flush?(): Promise<void>;
  /**
   * Forgets the history from before `beforeMs` (epoch ms, taken down to its minute): the
   * records and minute sums of earlier minutes, the finished ids of reservations made earlier,
   * and the totals of budget windows that ended earlier in every time zone. Never a live
   * reservation, never a window that has not ended: what the ledger admits against is untouched.
   * A settle or release repeated after its id was forgotten is not recognised and books again
   * (the books over-count, never under-count); the ledger finishes each reservation once.
   * Deletes in bounded steps, so writes go on between them; once `options.signal` is aborted it
   * stops after the step under way and resolves with what it deleted. Absent means the store
   * keeps everything.
   */
  prune?(beforeMs: number, options?: { signal?: AbortSignal }): Promise<StorePruneResult>;
  /** Releases connections and handles the store opened itself. */
  close(): Promise<void>;
}
