// The thread that owns a SQLite spend file's write connection: it commits the batches the main
// thread decided, so the commit never blocks the main thread's event loop. Every batch that
// arrived while the previous transaction ran is committed in the next one (one fsync under
// synchronous=FULL for all of them). Started by sqlite-commit-thread.ts; not exported.
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { type Batch, type BatchCommitter, prepareBatchCommitter } from "./sqlite-batch";
import type { CommitThreadOptions, FromCommitThread, ToCommitThread } from "./sqlite-commit-thread";

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

const reply = (message: FromCommitThread) => port.postMessage(message);

const close = () => {
  try {
    db?.close();
  } finally {
    port.close();
  }
};

port.on("message", (first: ToCommitThread) => {
  if (first.type === "close") return close();
  // Everything posted while the last transaction ran is waiting on the port: take it all.
  const batches: Batch[] = [first.batch];
  let closeAfter = false;
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    const message = next.message as ToCommitThread;
    if (message.type === "close") {
      closeAfter = true;
      break;
    }
    batches.push(message.batch);
  }
  if (!commit) {
    reply({ type: "failed", batches: batches.length, error: openError });
  } else {
    try {
      const refused = commit(batches);
      reply({ type: "committed", batches: batches.length, refused });
    } catch (error) {
      reply({ type: "failed", batches: batches.length, error: describe(error) });
    }
  }
  if (closeAfter) close();
});
