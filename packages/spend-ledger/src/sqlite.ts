import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import type { SpendStore, WindowTotals } from "./spend-store";
import { closedError, openSqliteEngine, type SqliteEngine } from "./sqlite-engine";
import type { SqliteCommitStats } from "./sqlite-group-commit";

export type { SqliteCommitStats } from "./sqlite-group-commit";

/** Options of {@link createSqliteSpendStore}. */
export interface SqliteSpendStoreOptions {
  /**
   * Database file; created with its tables when missing. One process owns it (a lock file
   * `<path>.spend-lock` beside it); stores opened on the same file in that process share one
   * owner, and another process is refused with `store_locked`.
   */
  path: string;
  /**
   * SQLite `synchronous` level, default `"full"`: every batch is fsynced before its operations
   * resolve, so a settle that resolved survives a process kill and a power loss. `"normal"`
   * (with WAL) still survives a killed process, because a commit is in the WAL file once
   * written, but the last commits before a power loss or OS crash may be lost. The first store
   * opened on a file in a process sets it.
   */
  synchronous?: "full" | "normal";
  /** How long a batch waits for another connection's write transaction, in ms; default 5000. */
  busyTimeoutMs?: number;
  /**
   * Where batches are committed, default `"worker"`: a worker thread owns the write connection,
   * so the transaction and its fsync run off the event loop while the next batch is collected.
   * `"main"` commits on the calling thread (blocking it for each fsync), for runtimes where the
   * package's worker file cannot be started, e.g. an application bundled into one file. A
   * `:memory:` database is always committed on the calling thread. The first store opened on a
   * file in a process sets it.
   */
  commitThread?: "worker" | "main";
}

/** A {@link SpendStore} in a SQLite file, with the underlying handle for inspection. */
export interface SqliteSpendStore extends SpendStore {
  /** The better-sqlite3 connection (for backups and inspection); closed with the last store. */
  readonly database: Database.Database;
  /** Resolves when every write queued so far is committed. */
  flush(): Promise<void>;
  /** Totals from memory; never null (the file was loaded when the store was created). */
  totals(rung: string, windowKey: string, nowMs: number): WindowTotals;
  /** Batches and writes committed since the file was opened in this process. */
  commitStats(): SqliteCommitStats;
}

const owners = new Map<string, { engine: SqliteEngine; stores: number }>();

/** One name per file however it is spelled, so every store on a file finds its one owner. */
function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

/**
 * A spend store in a SQLite file (better-sqlite3, WAL journal) with group commit. Admission is
 * decided synchronously in memory against spent + reserved, which is exact because this process
 * alone writes the file; the write is queued, and everything queued in one event-loop turn is
 * committed in ONE `BEGIN IMMEDIATE` transaction (one fsync with `synchronous = "full"`). Every
 * `reserve`, `settle` and `release` resolves only once its batch is durable, so a reservation
 * is on disk before the caller calls the upstream, and a settle that resolved survives SIGKILL.
 * Reads for the ledger's synchronous getters come from memory. Several stores opened on one file
 * in one process share one owner (and so one budget); `close()` of the last one drains the
 * queue and closes the file. Use the Redis store for several processes.
 *
 * @throws SpendLedgerError `store_locked` when another process owns the file, `store_failure`
 *   when it cannot be opened or migrated
 */
export function createSqliteSpendStore(options: SqliteSpendStoreOptions): SqliteSpendStore {
  const { path, synchronous = "full", busyTimeoutMs = 5000, commitThread = "worker" } = options;
  const key = canonicalPath(path);
  let owner = owners.get(key);
  if (!owner) {
    owner = {
      engine: openSqliteEngine({ path, synchronous, busyTimeoutMs, commitThread }),
      stores: 0,
    };
    owners.set(key, owner);
  }
  owner.stores += 1;
  const { engine } = owner;
  let open = true;
  /**
   * A read of settled records, after the settles accepted before it: their batch is waited for
   * (commits run in another thread, so "queued" lasts longer than a turn). A failed batch booked
   * nothing, so its failure does not fail the read.
   */
  const read = async <T>(what: string, run: () => T): Promise<T> => {
    if (!open) throw closedError(path);
    await engine.flush().catch(() => undefined);
    try {
      return run();
    } catch (cause) {
      throw new SpendLedgerError({
        code: "store_failure",
        message: `SQLite spend store: ${what} failed`,
        cause,
      });
    }
  };

  return {
    database: engine.database,
    ready: () => (open ? Promise.resolve() : Promise.reject(closedError(path))),
    reserve: (request) => (open ? engine.reserve(request) : Promise.reject(closedError(path))),
    settle: (request) => (open ? engine.settle(request) : Promise.reject(closedError(path))),
    release: (request) => (open ? engine.release(request) : Promise.reject(closedError(path))),
    totals: (rung, windowKey, nowMs) => engine.totals(rung, windowKey, nowMs),
    records: (query) => read("records", () => engine.records(query)),
    summary: (query) => read("summary", () => engine.summary(query)),
    flush: () => (open ? engine.flush() : Promise.resolve()),
    prune: (beforeMs, pruneOptions) =>
      open ? engine.prune(beforeMs, pruneOptions?.signal) : Promise.reject(closedError(path)),
    commitStats: () => engine.commitStats(),
    async close() {
      if (!open) return;
      open = false;
      const current = owners.get(key);
      if (current && current.engine === engine && --current.stores === 0) {
        owners.delete(key);
        // Drains the queue, stops the commit thread, closes the file and frees it.
        await engine.close();
        return;
      }
      await engine.flush();
    },
  };
}
