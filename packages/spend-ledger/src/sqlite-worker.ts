// The thread that owns a SQLite spend file's write connection: it commits the batches the main
// thread decided, so the commit never blocks the main thread's event loop. Every batch that
// arrived while the previous transaction ran is committed in the next one (one fsync under
// synchronous=FULL for all of them). Started by sqlite-commit-thread.ts; not exported.
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { type Batch, type BatchCommitter, prepareBatchCommitter } from "./sqlite-batch";
import type {
  CommitThreadOptions,
  ErrorData,
  FromCommitThread,
  ToCommitThread,
} from "./sqlite-commit-thread";
import { type PruneStep, preparePruneStep } from "./sqlite-prune";

const port = parentPort;
if (!port) throw new Error("sqlite-worker runs only as a worker thread");
const { path, synchronous, busyTimeoutMs } = workerData as CommitThreadOptions;

/** What went wrong, as plain data: an Error's own fields do not survive structured clone. */
const describe = (error: unknown): ErrorData => ({
  name: error instanceof Error ? error.name : "Error",
  message: error instanceof Error ? error.message : String(error),
  code: (error as { code?: unknown } | null)?.code,
});

let db: Database.Database | null = null;
let commit: BatchCommitter | null = null;
let prune: PruneStep | null = null;
let openError: ErrorData = null;
try {
  db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma("journal_mode = WAL");
  // Per connection: this is the connection whose commits must be durable.
  db.pragma(`synchronous = ${synchronous === "normal" ? "NORMAL" : "FULL"}`);
  commit = prepareBatchCommitter(db);
  prune = preparePruneStep(db);
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

/** Commits `batches` in one transaction and answers for them. */
const commitAll = (batches: Batch[]) => {
  if (batches.length === 0) return;
  if (!commit) {
    reply({ type: "failed", batches: batches.length, error: openError });
    return;
  }
  try {
    const refused = commit(batches);
    reply({ type: "committed", batches: batches.length, refused });
  } catch (error) {
    reply({ type: "failed", batches: batches.length, error: describe(error) });
  }
};

/** Runs one prune step and answers for it. */
const pruneStep = (beforeMs: number, limit: number) => {
  if (!prune) {
    reply({ type: "pruneFailed", error: openError });
    return;
  }
  try {
    reply({ type: "pruned", result: prune(beforeMs, limit) });
  } catch (error) {
    reply({ type: "pruneFailed", error: describe(error) });
  }
};

port.on("message", (first: ToCommitThread) => {
  // Everything posted while the last transaction ran is waiting on the port: take it all, in
  // order. The batches go in one transaction; a prune step, in its own, after the batches
  // posted before it.
  let batches: Batch[] = [];
  for (let message: ToCommitThread | undefined = first; message !== undefined; ) {
    if (message.type === "close") {
      commitAll(batches);
      return close();
    }
    if (message.type === "commit") batches.push(message.batch);
    else {
      commitAll(batches);
      batches = [];
      pruneStep(message.beforeMs, message.limit);
    }
    message = receiveMessageOnPort(port)?.message as ToCommitThread | undefined;
  }
  commitAll(batches);
});
