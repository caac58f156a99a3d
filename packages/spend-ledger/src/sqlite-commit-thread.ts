import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { type Batch, prepareBatchCommitter } from "./sqlite-batch";

/** How the commit thread opens its connection to the spend file. */
export interface CommitThreadOptions {
  path: string;
  synchronous: "full" | "normal";
  busyTimeoutMs: number;
}

/** Messages to the worker. */
export type ToCommitThread = { type: "commit"; batch: Batch } | { type: "close" };

/** Messages from the worker. */
type FromCommitThread =
  | { type: "committed" }
  | { type: "failed"; error: { name: string; message: string; code?: unknown } | null };

/** Where the batches of one spend file are committed; one batch at a time. */
export interface CommitThread {
  /** Resolves once `batch` is durable, rejects when it did not commit (nothing of it is on disk). */
  commit(batch: Batch): Promise<void>;
  /** Closes the write connection; resolves once it is closed (the worker has exited). */
  close(): Promise<void>;
  /** Why the thread is gone when it stopped on its own (nothing can commit any more), else null. */
  failure(): Error | null;
}

/**
 * Commits on the calling thread, on `db`: blocks the event loop for each transaction and its
 * fsync. Used for `:memory:` (a private database another thread cannot open) and when asked for.
 */
export function inlineCommitThread(db: Database.Database): CommitThread {
  const commit = prepareBatchCommitter(db);
  return {
    commit(batch) {
      try {
        commit(batch);
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close: () => Promise.resolve(),
    failure: () => null,
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
 * Starts the worker thread that owns the write connection of a spend file and commits each
 * batch posted to it, so the transaction and its fsync run off the event loop. The worker keeps
 * the process alive only while a batch is in flight: an idle store lets the process exit, as
 * the in-thread store did, and a batch already posted is waited for.
 */
export function startCommitWorker(options: CommitThreadOptions): CommitThread {
  const { entry, eval: evaluate } = workerEntry();
  const worker = new Worker(entry, { workerData: options, eval: evaluate });
  worker.unref();
  let pending: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  let exited = false;
  let closing = false;
  let exitError: Error | null = null;
  const exit = new Promise<void>((resolve) => {
    worker.once("exit", (code) => {
      exited = true;
      exitError ??= new Error(`the SQLite commit thread exited with code ${code}`);
      // A batch whose outcome is unknown is reported failed; see the engine for why that is safe.
      pending?.reject(exitError);
      pending = null;
      resolve();
    });
  });
  worker.on("error", (error) => {
    exitError = error;
  });
  worker.on("message", (message: FromCommitThread) => {
    const current = pending;
    pending = null;
    worker.unref();
    if (!current) return;
    if (message.type === "committed") {
      current.resolve();
      return;
    }
    const failure = new Error(message.error?.message ?? "the SQLite commit thread failed");
    if (message.error) {
      failure.name = message.error.name;
      Object.assign(failure, { code: message.error.code });
    }
    current.reject(failure);
  });
  return {
    commit(batch) {
      if (exited) return Promise.reject(exitError);
      if (pending) return Promise.reject(new Error("a batch is already being committed"));
      return new Promise<void>((resolve, reject) => {
        pending = { resolve, reject };
        worker.ref();
        worker.postMessage({ type: "commit", batch } satisfies ToCommitThread);
      });
    },
    failure: () => (exited && !closing ? exitError : null),
    async close() {
      closing = true;
      if (exited) return;
      // The worker closes its connection and its port, and so exits.
      worker.ref();
      worker.postMessage({ type: "close" } satisfies ToCommitThread);
      await exit;
    },
  };
}
