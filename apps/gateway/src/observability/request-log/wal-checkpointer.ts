import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** A thread that checkpoints a SQLite file's write-ahead log; see {@link startWalCheckpointer}. */
export interface WalCheckpointer {
  /**
   * Counts `bytes` more written to the log; once `thresholdBytes` have been written since the
   * last checkpoint, asks the thread for the next one.
   */
  written(bytes: number): void;
  /** Checkpoints once more and stops; resolves once the thread is gone. */
  close(): Promise<void>;
}

/**
 * The checkpointing thread's code, plain CommonJS (a worker started with `eval` runs it as is,
 * from sources and from the built package alike): its own connection to the file, a PASSIVE
 * checkpoint (it never waits for the writer, nor makes it wait) each time it is asked, and a
 * last one when told to close.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
parentPort.on("message", (message) => {
  db.pragma("wal_checkpoint(PASSIVE)");
  if (message !== "close") return;
  db.close();
  parentPort.close();
});
`;

/**
 * Starts a thread that checkpoints the WAL of the SQLite file at `path` whenever the writer has
 * added `thresholdBytes` to it, so the connection that writes it (whose automatic checkpoints
 * the caller turns off) never blocks its event loop on a checkpoint: copying the log back into
 * the file and the two fsyncs that make it durable under `synchronous = NORMAL` (the request
 * log's inserts took 6.9 µs per record on the event loop with them in the gateway benchmark,
 * 4.2 without). Checkpoints come as often as SQLite's own would (by the amount written, not on
 * a timer), so a quiet log causes no fsync that could delay another file's commits.
 * `onStopped` is told when the thread stops on its own (it could not open the file, or a
 * checkpoint failed), so the caller can take checkpoints back.
 */
export function startWalCheckpointer(
  path: string,
  thresholdBytes: number,
  onStopped: (error: Error) => void,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(THREAD_CODE, { eval: true, workerData: { path, driver } });
  worker.unref();
  let closing = false;
  let failure: Error | null = null;
  let pending = 0;
  worker.on("error", (error: unknown) => {
    failure = threadError(error);
  });
  const exited = new Promise<void>((resolve) => {
    worker.once("exit", (code) => {
      if (!closing)
        onStopped(failure ?? new Error(`the checkpoint thread exited with code ${code}`));
      resolve();
    });
  });
  return {
    written(bytes) {
      pending += bytes;
      if (pending < thresholdBytes || closing) return;
      pending = 0;
      worker.postMessage("checkpoint");
    },
    async close() {
      if (closing) return exited;
      closing = true;
      worker.postMessage("close");
      await exited;
    },
  };
}

/**
 * The error a thread threw, as an Error with a message: SQLite's own errors cross the thread
 * boundary as plain objects holding only their `code`.
 */
function threadError(error: unknown): Error {
  if (error instanceof Error && error.message) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return new Error(
    `the checkpoint thread failed: ${typeof code === "string" ? code : String(error)}`,
  );
}
