import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { emptyBucket, type HistoryBucket, type StatusHistoryStore } from "./history-store";

/**
 * The status history in a SQLite table (`status_history`) of the gateway's state file: one row
 * per (bucket, kind, series), `kind` = `requests` (a count, summed) or `level` (the latest
 * reading, with its instant).
 */
export function createSqliteHistoryStore(options: { path: string }): StatusHistoryStore {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.exec(`CREATE TABLE IF NOT EXISTS status_history (
    bucket_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    series TEXT NOT NULL,
    value REAL NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (bucket_ms, kind, series)
  ) WITHOUT ROWID`);
  const addCount = db.prepare(
    `INSERT INTO status_history (bucket_ms, kind, series, value, at_ms) VALUES (?, 'requests', ?, ?, 0)
     ON CONFLICT (bucket_ms, kind, series) DO UPDATE SET value = value + excluded.value`,
  );
  const setLevel = db.prepare(
    `INSERT INTO status_history (bucket_ms, kind, series, value, at_ms) VALUES (?, 'level', ?, ?, ?)
     ON CONFLICT (bucket_ms, kind, series) DO UPDATE SET value = excluded.value, at_ms = excluded.at_ms
     WHERE excluded.at_ms >= status_history.at_ms`,
  );
  const select = db.prepare(
    "SELECT bucket_ms, kind, series, value, at_ms FROM status_history WHERE bucket_ms >= ? AND bucket_ms < ? ORDER BY bucket_ms",
  );
  const remove = db.prepare("DELETE FROM status_history WHERE bucket_ms < ?");
  const addAll = db.transaction((buckets: readonly HistoryBucket[]) => {
    for (const bucket of buckets) {
      for (const [rung, count] of Object.entries(bucket.requests)) {
        addCount.run(bucket.startMs, rung, count);
      }
      for (const [series, reading] of Object.entries(bucket.levels)) {
        setLevel.run(bucket.startMs, series, reading.value, reading.atMs);
      }
    }
  });
  return {
    async add(buckets) {
      addAll(buckets);
    },
    async read(fromMs, toMs) {
      const rows = select.all(fromMs, toMs) as {
        bucket_ms: number;
        kind: string;
        series: string;
        value: number;
        at_ms: number;
      }[];
      const out: HistoryBucket[] = [];
      for (const row of rows) {
        let bucket = out.at(-1);
        if (!bucket || bucket.startMs !== row.bucket_ms) {
          bucket = emptyBucket(row.bucket_ms);
          out.push(bucket);
        }
        if (row.kind === "requests") bucket.requests[row.series] = row.value;
        else bucket.levels[row.series] = { value: row.value, atMs: row.at_ms };
      }
      return out;
    },
    async prune(beforeMs) {
      remove.run(beforeMs);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
