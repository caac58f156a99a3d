import { SpendLedgerError } from "./errors";
import { createHandOver, type HandOver } from "./hand-over";
import type { StoreReserveResult } from "./spend-store";
import type { BatchWrites } from "./sqlite-batch";
import type { CommitThread } from "./sqlite-commit-thread";
import {
  holdReservation,
  type LiveReservation,
  takeReservation,
  totalsOf,
  type WindowState,
} from "./window-book";

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

/**
 * The durable side of one spend file's writes: each turn's writes, applied in memory already,
 * queued into one batch; batches handed to the commit thread in decision order without waiting
 * for the ones before; and each batch's answer, which makes its ids durable, or takes its
 * effects back out of memory when it did not commit.
 */
interface GroupCommit {
  /** Ids settled or released in memory whose batch has not committed yet. */
  readonly pendingFinished: Set<string>;
  /**
   * Ids reserved in memory whose batch has not committed yet: a reservation that expires in
   * memory before its row is on disk must still refuse its id a second time.
   */
  readonly pendingReserved: Set<string>;
  /** Notes a reservation expired in memory, so the next batch marks its row expired on disk. */
  markExpired(reservation: LiveReservation): void;
  /**
   * The batch being queued into, opened on first use, and handed over as `urgent` asks (see
   * {@link HandOver.request}): a reserve or flush at the end of this turn, a settle or release
   * with the next urgent batch or after SETTLE_DELAY_MS.
   */
  current(urgent: boolean): QueuedBatch;
  /** Notes what a write did in memory, for its batch's answer (its wire form is in `writes`). */
  queue(
    batch: QueuedBatch,
    kind: WriteKind,
    id: string,
    state: WindowState,
    held: LiveReservation | undefined,
    costMicroUsd: number,
    result: StoreReserveResult | null,
  ): void;
  /** Resolves with `value` once the current batch is durable: an answer that writes nothing. */
  afterBatch<T>(value: T, urgent?: boolean): Promise<T>;
  /** Resolves once nothing is queued or in flight (a failed batch counts as done). */
  drain(): Promise<void>;
  /** Resolves once everything queued so far is durable; rejects once the commit thread is gone. */
  flush(): Promise<void>;
  /** Set when the commit thread is gone: nothing can be made durable any more. */
  broken(): SpendLedgerError | null;
  commitStats(): SqliteCommitStats;
}

/** The group commit of the spend file at `path`, whose batches `committer` commits. */
export function createGroupCommit(path: string, committer: CommitThread): GroupCommit {
  /** Latest expiry instant seen in memory whose durable rows are not yet marked expired. */
  let expiredUpToMs: number | null = null;
  const markExpired = (reservation: LiveReservation): void => {
    expiredUpToMs = Math.max(expiredUpToMs ?? 0, reservation.expiresAtMs);
  };

  const pendingFinished = new Set<string>();
  const pendingReserved = new Set<string>();

  /** The batch being queued into; see `current` for when it is handed to the commit thread. */
  let open: QueuedBatch | null = null;
  /** Batches handed to the commit thread and not yet answered. */
  let inFlight = 0;
  /** Settles once every batch handed over so far is answered (whatever the answer). */
  let answered: Promise<void> = Promise.resolve();
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

  const afterBatch = <T>(value: T, urgent = true): Promise<T> =>
    current(urgent).answer.then(() => value);

  const drain = (): Promise<void> =>
    open === null && inFlight === 0 ? Promise.resolve() : afterBatch(undefined).catch(() => {});

  return {
    pendingFinished,
    pendingReserved,
    markExpired,
    current,
    queue,
    afterBatch,
    drain,
    flush: () => {
      if (broken) return Promise.reject(broken);
      return open === null && inFlight === 0 ? Promise.resolve() : afterBatch(undefined);
    },
    broken: () => broken,
    commitStats: () => ({ batches: committer.transactions(), writes: writesCommitted }),
  };
}
