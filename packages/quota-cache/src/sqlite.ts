import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { QuotaCacheError } from "./errors";
import {
  consoleStoreLogger,
  createLocalLeases,
  createOutageReporter,
  createRecordMirror,
  QUOTA_STORE_BUCKETS,
  type QuotaStore,
  type QuotaStoreBucket,
  type QuotaStoreLogger,
  toStoreRecord,
} from "./quota-store";

/** Options of {@link createSqliteQuotaStore}. */
export interface SqliteQuotaStoreOptions {
  /** Database file; its folder is created when missing. `:memory:` for a throwaway database. */
  path: string;
  /** Receives one warning when a write fails (disk full, file removed). Default: stderr. */
  logger?: QuotaStoreLogger;
}

interface RecordRow {
  bucket: string;
  connection_id: string;
  record_key: string;
  rev: number;
  value: string;
}

/**
 * A quota store in a SQLite file (better-sqlite3, WAL mode): the embedded default of the gateway.
 * State survives a restart: a new store on the same file reads back every record. One process
 * per file; replicas that share state use the Redis store. The table is
 * `planfirst_quota_records`, so the file can be shared with other planfirst stores.
 *
 * @throws QuotaCacheError `store_open_failed` when the file cannot be opened.
 */
export function createSqliteQuotaStore(options: SqliteQuotaStoreOptions): QuotaStore {
  const outage = createOutageReporter(options.logger ?? consoleStoreLogger, "sqlite");
  let db: Database.Database;
  try {
    if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
    db = new Database(options.path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    db.exec(`CREATE TABLE IF NOT EXISTS planfirst_quota_records (
      bucket TEXT NOT NULL,
      connection_id TEXT NOT NULL,
      record_key TEXT NOT NULL,
      rev REAL NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (bucket, connection_id, record_key)
    ) WITHOUT ROWID`);
  } catch (error) {
    throw new QuotaCacheError({
      code: "store_open_failed",
      message: "cannot open the SQLite quota store",
      store: "sqlite",
      cause: error,
    });
  }

  const upsert = db.prepare(
    `INSERT INTO planfirst_quota_records (bucket, connection_id, record_key, rev, value)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (bucket, connection_id, record_key) DO UPDATE
     SET rev = excluded.rev, value = excluded.value
     WHERE excluded.rev >= planfirst_quota_records.rev`,
  );
  const deleteRecord = db.prepare(
    "DELETE FROM planfirst_quota_records WHERE bucket = ? AND connection_id = ? AND record_key = ?",
  );

  const mirror = createRecordMirror();
  const rows = db
    .prepare("SELECT bucket, connection_id, record_key, rev, value FROM planfirst_quota_records")
    .all() as RecordRow[];
  for (const row of rows) {
    if (!QUOTA_STORE_BUCKETS.includes(row.bucket as QuotaStoreBucket)) continue;
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      continue;
    }
    const record = toStoreRecord(row.connection_id, row.record_key, row.rev, value);
    if (record) mirror.apply(row.bucket as QuotaStoreBucket, record);
  }

  // One process per file, so probe leases live in this process (P1 "else per replica").
  const leases = createLocalLeases();
  let closed = false;
  function persist(operation: string, write: () => void): void {
    if (closed) return;
    try {
      write();
      outage.recover();
    } catch (error) {
      outage.fail(operation, error);
    }
  }

  return {
    list: (bucket, connectionId) => mirror.list(bucket, connectionId),
    connectionIds: (bucket) => mirror.connectionIds(bucket),
    put(bucket, record) {
      if (!mirror.apply(bucket, record)) return false;
      persist("put", () =>
        upsert.run(
          bucket,
          record.connectionId,
          record.key,
          record.rev,
          JSON.stringify(record.value),
        ),
      );
      return true;
    },
    remove(bucket, connectionId, key) {
      mirror.delete(bucket, connectionId, key);
      persist("remove", () => deleteRecord.run(bucket, connectionId, key));
    },
    acquireLease: async (name, holder, ttlMs, nowMs) => leases.acquire(name, holder, ttlMs, nowMs),
    releaseLease: async (name, holder) => leases.release(name, holder),
    ready: async () => {},
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
