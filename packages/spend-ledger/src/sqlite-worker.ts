// The thread that owns a SQLite spend file's write connection: it commits the batches the main
// thread decided, one transaction (and one fsync under synchronous=FULL) each, so the commit
// never blocks the main thread's event loop. Started by sqlite-commit-thread.ts; not exported.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { type BatchCommitter, prepareBatchCommitter } from "./sqlite-batch";
import type { CommitThreadOptions, ToCommitThread } from "./sqlite-commit-thread";

const port = parentPort;
if (!port) throw new Error("sqlite-worker runs only as a worker thread");
const { path, synchronous, busyTimeoutMs } = workerData as CommitThreadOptions;

/** What went wrong, as plain data: an Error's own fields do not survive structured clone. */
const describe = (error: unknown) => ({
  name: error instanceof Error ? error.name : "Error",
  message: error instanceof Error ? error.message : String(error),
  code: (error as { code?: unknown } | null)?.code,
});

let db: Database.Database | null = null;
let commit: BatchCommitter | null = null;
let openError: ReturnType<typeof describe> | null = null;
try {
  db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma("journal_mode = WAL");
  // Per connection: this is the connection whose commits must be durable.
  db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
  commit = prepareBatchCommitter(db);
} catch (error) {
  openError = describe(error);
}

port.on("message", (message: ToCommitThread) => {
  if (message.type === "close") {
    try {
      db?.close();
    } finally {
      port.close();
    }
    return;
  }
  if (!commit) {
    port.postMessage({ type: "failed", error: openError });
    return;
  }
  try {
    commit(message.batch);
    port.postMessage({ type: "committed" });
  } catch (error) {
    port.postMessage({ type: "failed", error: describe(error) });
  }
});
