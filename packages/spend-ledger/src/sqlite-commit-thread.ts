import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import type { StorePruneResult } from "./spend-store";
import { type Batch, type BatchCommitter, prepareBatchCommitter } from "./sqlite-batch";
import { preparePruneStep } from "./sqlite-prune";

/** How the commit thread opens its connection to the spend file. */
export interface CommitThreadOptions {
  path: string;
  synchronous: "full" | "normal";
  busyTimeoutMs: number;
}

/** Messages to the worker. */
export type ToCommitThread =
  | { type: "commit"; batch: Batch }
  | { type: "prune"; beforeMs: number; limit: number }
  | { type: "close" };

/** An error as plain data: an Error's own fields do not survive structured clone. */
export type ErrorData = { name: string; message: string; code?: unknown } | null;

/**
 * Messages from the worker: the outcome of the oldest `batches` batches posted and not yet
 * answered, committed together in one transaction or failed together; or the outcome of the
 * oldest prune step posted and not yet answered.
 */
export type FromCommitThread =
  | { type: "committed"; batches: number; refused: string[] }
  | { type: "failed"; batches: number; error: ErrorData }
  | { type: "pruned"; result: StorePruneResult }
  | { type: "pruneFailed"; error: ErrorData };

/**
 * Where the batches of one spend file are committed. Batches may be handed over while earlier
 * ones are still committing: they commit in the order given, and their promises settle in
 * that order.
 */
export interface CommitThread {
  /**
   * Resolves once `batch` is durable, with the reserve ids the file already knew (see
   * {@link BatchCommitter}; the list may name ids of batches committed in the same transaction).
   * Rejects when it did not commit (nothing of it is on disk).
   */
  commit(batch: Batch): Promise<readonly string[]>;
  /**
   * Runs one prune step (see sqlite-prune.ts) in a transaction of its own, after the batches
   * handed over before it; resolves with what it deleted.
   */
  pruneStep(beforeMs: number, limit: number): Promise<StorePruneResult>;
  /** Closes the write connection; resolves once it is closed (the worker has exited). */
  close(): Promise<void>;
  /** Why the thread is gone when it stopped on its own (nothing can commit any more), else null. */
  failure(): Error | null;
  /** Transactions committed so far (one fsync each under `synchronous=FULL`). */
  transactions(): number;
}

/**
 * Commits on the calling thread, on `db`: blocks the event loop for each transaction and its
 * fsync. Used for `:memory:` (a private database another thread cannot open) and when asked for.
 */
export function inlineCommitThread(db: Database.Database): CommitThread {
  const commit = prepareBatchCommitter(db);
  const prune = preparePruneStep(db);
  let transactions = 0;
  return {
    commit(batch) {
      try {
        const refused = commit([batch]);
        transactions += 1;
        return Promise.resolve(refused);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    pruneStep(beforeMs, limit) {
      try {
        return Promise.resolve(prune(beforeMs, limit));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close: () => Promise.resolve(),
    failure: () => null,
    transactions: () => transactions,
  };
}

/**
 * How to start the worker entry beside this module in the form it is running in: the built
 * package's ESM and CJS builds each emit `sqlite-worker.js` / `.cjs` next to this code; from
 * sources (the monorepo's `@planfirst/source` condition, under vitest or tsx) it is
 * `sqlite-worker.ts`, which Node 20 cannot load by itself and whose threads do not get the
 * `--import` loader hooks, so a one-line bootstrap registers tsx's require hook in the thread
 * and requires the TypeScript entry through it.
 */
function workerEntry(): { entry: URL | string; eval: boolean } {
  const here = import.meta.url;
  const extension = here.slice(here.lastIndexOf("."));
  const url = new URL(`./sqlite-worker${extension}`, here);
  if (extension !== ".ts") return { entry: url, eval: false };
  const tsx = createRequire(here).resolve("tsx/cjs/api");
  const file = fileURLToPath(url);
  return {
    entry: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`,
    eval: true,
  };
}

/**
 * Starts the worker thread that owns the write connection of a spend file. Each batch is posted
 * as soon as it is handed over; the worker commits, in one transaction, every batch that
 * arrived while its previous transaction ran (group commit on the disk's side), so the event
 * loop never waits for the worker to be free, and the worker never waits for the event loop.
 * The worker keeps the process alive only while a batch is unanswered: an idle store lets the
 * process exit, and a batch already posted is waited for.
 */
export function startCommitWorker(options: CommitThreadOptions): CommitThread {
  const { entry, eval: evaluate } = workerEntry();
  const worker = new Worker(entry, { workerData: options, eval: evaluate });
  worker.unref();
  /** Unanswered batches, oldest first. */
  let pending: {
    resolve: (refused: readonly string[]) => void;
    reject: (error: unknown) => void;
  }[] = [];
  /** Unanswered prune steps, oldest first. */
  let prunes: { resolve: (result: StorePruneResult) => void; reject: (error: unknown) => void }[] =
    [];
  /** The worker keeps the process alive only while something posted is unanswered. */
  const unrefWhenIdle = () => {
    if (pending.length + prunes.length === 0) worker.unref();
  };
  let exited = false;
  let closing = false;
  let exitError: Error | null = null;
  let transactions = 0;
  const exit = new Promise<void>((resolve) => {
    worker.once("exit", (code) => {
      exited = true;
      exitError ??= new Error(`the SQLite commit thread exited with code ${code}`);
      // Batches whose outcome is unknown are reported failed; see the engine for why that is safe.
      const unanswered = [...pending, ...prunes];
      pending = [];
      prunes = [];
      for (const waiting of unanswered) waiting.reject(exitError);
      resolve();
    });
  });
  worker.on("error", (error) => {
    exitError = error;
  });
  worker.on("message", (message: FromCommitThread) => {
    if (message.type === "pruned" || message.type === "pruneFailed") {
      const step = prunes.shift();
      unrefWhenIdle();
      if (message.type === "pruned") step?.resolve(message.result);
      else step?.reject(errorOf(message.error));
      return;
    }
    const answered = pending.splice(0, message.batches);
    unrefWhenIdle();
    if (message.type === "committed") {
      transactions += 1;
      for (const batch of answered) batch.resolve(message.refused);
      return;
    }
    const failure = errorOf(message.error);
    for (const batch of answered) batch.reject(failure);
  });
  return {
    commit(batch) {
      if (exited) return Promise.reject(exitError);
      return new Promise<readonly string[]>((resolve, reject) => {
        pending.push({ resolve, reject });
        if (pending.length === 1) worker.ref();
        worker.postMessage({ type: "commit", batch } satisfies ToCommitThread);
      });
    },
    pruneStep(beforeMs, limit) {
      if (exited) return Promise.reject(exitError);
      return new Promise<StorePruneResult>((resolve, reject) => {
        prunes.push({ resolve, reject });
        worker.ref();
        worker.postMessage({ type: "prune", beforeMs, limit } satisfies ToCommitThread);
      });
    },
    failure: () => (exited && !closing ? exitError : null),
    transactions: () => transactions,
    async close() {
      closing = true;
      if (exited) return;
      // The worker commits what was posted before, closes its connection and its port, and so
      // exits.
      worker.ref();
      worker.postMessage({ type: "close" } satisfies ToCommitThread);
      await exit;
    },
  };
}

/** The error the worker described, rebuilt on this thread. */
function errorOf(data: ErrorData): Error {
  const failure = new Error(data?.message ?? "the SQLite commit thread failed");
  if (data) {
    failure.name = data.name;
    Object.assign(failure, { code: data.code });
  }
  return failure;
}
