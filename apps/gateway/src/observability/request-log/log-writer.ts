import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * The columns of one `request_log_batch` row from `first_at_ms` to `records`, in table order:
 * the batch's summary, then its records as one JSON array (see request-log-sqlite.ts).
 */
export type RowColumns = [number, number, number, number, number, string, string];

/** The insert of one `request_log_batch` row, its values the {@link RowColumns} in order. */
export const INSERT_ROW = `INSERT INTO request_log_batch (first_at_ms, last_at_ms, count, min_status, max_status, tags, records)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** The thread that writes a request log file's rows; see {@link startLogWriter}. */
interface LogWriter {
  /** Resolves once the row is committed; rejects when it was not (nothing of it is written). */
  insert(columns: RowColumns): Promise<void>;
  /** Why the thread is gone when it stopped on its own (nothing more can be written), else null. */
  failure(): Error | null;
  /** Writes what was handed over, checkpoints once more and stops; resolves once it is gone. */
  close(): Promise<void>;
}

/**
 * The writing thread's code, plain CommonJS (a worker started with `eval` runs it as is, from
 * sources and from the built package alike): its own connection to the file, one insert per
 * row handed over ({@link INSERT_ROW}, passed in), answered in order. Its commits checkpoint the
 * WAL once about `checkpointBytes` were logged since the last one (SQLite's automatic
 * checkpoint, counted in the file's pages), and it checkpoints once more when told to close.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
const pageBytes = db.pragma("page_size", { simple: true });
db.pragma("wal_autocheckpoint = " + Math.max(1, Math.ceil(workerData.checkpointBytes / pageBytes)));
const insert = db.prepare(workerData.insertRow);
parentPort.on("message", (message) => {
  if (message === "close") {
    db.pragma("wal_checkpoint(PASSIVE)");
    db.close();
    parentPort.close();
    return;
  }
  try {
    insert.run(...message);
    parentPort.postMessage(null);
  } catch (error) {
    parentPort.postMessage({ message: String(error && error.message), code: error && error.code });
  }
});
`;

/**
 * Starts the thread that writes the rows of the request log file at `path` (its table already
 * made), so the event loop never waits for an insert: writing a batch row of 256 records
 * (about 130 KB of JSON, a chain of overflow pages) took 4.6–4.9 µs per record of event-loop
 * time in the gateway benchmark's CPU profile, on the request path of every request. The
 * thread's own commits checkpoint the WAL (copying it back into the file and the fsyncs that
 * make that durable under `synchronous = NORMAL`), as often as SQLite's default threshold would
 * in 4 KiB pages (`checkpointBytes` logged), so a quiet log causes no fsync that could delay
 * another file's commits. The thread keeps the process alive only while a row is unanswered.
 */
export function startLogWriter(path: string, checkpointBytes: number): LogWriter {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(THREAD_CODE, {
    eval: true,
    workerData: { path, driver, checkpointBytes, insertRow: INSERT_ROW },
  });
  worker.unref();
  /** Unanswered rows, oldest first. */
  let pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let closing = false;
  let exited = false;
  let exitError: Error | null = null;
  worker.on("error", (error: unknown) => {
    exitError = threadError(error);
  });
  worker.on("message", (answer: { message: string; code?: unknown } | null) => {
    const row = pending.shift();
    if (pending.length === 0) worker.unref();
    if (answer === null) row?.resolve();
    else row?.reject(Object.assign(new Error(answer.message), { code: answer.code }));
  });
  const exit = new Promise<void>((resolve) => {
    worker.once("exit", (code) => {
      exited = true;
      exitError ??= new Error(`the request log's writing thread exited with code ${code}`);
      const unanswered = pending;
      pending = [];
      for (const row of unanswered) row.reject(exitError);
      resolve();
    });
  });
  return {
    insert(columns) {
      if (exited || closing) {
        return Promise.reject(exitError ?? new Error("the request log's writing thread is closed"));
      }
      return new Promise((resolve, reject) => {
        pending.push({ resolve, reject });
        if (pending.length === 1) worker.ref();
        worker.postMessage(columns);
      });
    },
    failure: () => (exited && !closing ? exitError : null),
    async close() {
      if (closing) return exit;
      closing = true;
      if (exited) return;
      worker.ref();
      worker.postMessage("close");
      await exit;
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
    `the request log's writing thread failed: ${typeof code === "string" ? code : String(error)}`,
  );
}
