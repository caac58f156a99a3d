import { mkdirSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import Database from "better-sqlite3";
import { matchesRequestFilter, type RequestFilter } from "./request-filter";
import { READ_PAGE, type RequestLogStore } from "./request-log-store";
import type { RequestRecord } from "./request-record";
import { parseStoredRecord } from "./stored-record";

/**
 * The request log's SQLite file for the state file `statePath`: beside it, named after it
 * (`.planfirst/state.db` → `.planfirst/state.requests.db`). A file of its own, so its batched
 * writes never wait on the spend store's commits to the state file, nor make them wait.
 */
export function requestLogPathFor(statePath: string): string {
  const extension = extname(statePath);
  return join(
    dirname(statePath),
    `${basename(statePath, extension)}.requests${extension || ".db"}`,
  );
}

/**
 * The request log in a SQLite file: table `request_log`, one row per request (the record as
 * JSON, and the columns the filters read), in write order. A batch is one transaction.
 */
export function createSqliteRequestLogStore(options: { path: string }): RequestLogStore {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.exec(`CREATE TABLE IF NOT EXISTS request_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    key_id TEXT NOT NULL,
    model_asked TEXT,
    model_served TEXT,
    rung TEXT,
    status INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS request_log_at ON request_log (at_ms);`);
  const insert = db.prepare(
    "INSERT INTO request_log (at_ms, key_id, model_asked, model_served, rung, status, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertAll = db.transaction((records: readonly RequestRecord[]) => {
    for (const record of records) {
      insert.run(
        Date.parse(record.at),
        record.keyId,
        record.modelAsked,
        record.modelServed,
        record.rung,
        record.status,
        JSON.stringify(record),
      );
    }
  });
  const pruneCount = db.prepare(
    "DELETE FROM request_log WHERE id <= (SELECT MAX(id) FROM request_log) - ?",
  );
  const pruneAge = db.prepare("DELETE FROM request_log WHERE at_ms < ?");

  /** One page of matches, newest first, below row `beforeId` (exclusive). */
  function select(filter: RequestFilter, beforeId: number, count: number) {
    const where: string[] = ["id < ?"];
    const values: (string | number)[] = [beforeId];
    if (filter.key !== undefined) {
      where.push("key_id = ?");
      values.push(filter.key);
    }
    if (filter.model !== undefined) {
      where.push("(model_asked = ? OR model_served = ?)");
      values.push(filter.model, filter.model);
    }
    if (filter.rung !== undefined) {
      where.push("rung = ?");
      values.push(filter.rung);
    }
    if (filter.statusMin !== undefined) {
      where.push("status >= ?");
      values.push(filter.statusMin);
    }
    if (filter.statusMax !== undefined) {
      where.push("status <= ?");
      values.push(filter.statusMax);
    }
    if (filter.sinceMs !== undefined) {
      where.push("at_ms >= ?");
      values.push(filter.sinceMs);
    }
    if (filter.untilMs !== undefined) {
      where.push("at_ms < ?");
      values.push(filter.untilMs);
    }
    const sql = `SELECT id, record FROM request_log WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`;
    values.push(count);
    return db.prepare(sql).all(...values) as { id: number; record: string }[];
  }

  return {
    async append(records) {
      if (records.length > 0) insertAll(records);
    },
    async *pages(filter) {
      let beforeId = Number.MAX_SAFE_INTEGER;
      let left = filter.limit;
      while (left > 0) {
        const rows = select(filter, beforeId, Math.min(READ_PAGE, left));
        if (rows.length === 0) return;
        beforeId = rows.at(-1)!.id;
        const page: RequestRecord[] = [];
        for (const row of rows) {
          const record = parseStoredRecord(row.record);
          // The columns decided the match; the record is checked again in case they disagree.
          if (record && matchesRequestFilter(record, filter)) page.push(record);
        }
        left -= rows.length;
        if (page.length > 0) yield page;
      }
    },
    async prune(bounds) {
      pruneCount.run(bounds.maxRecords);
      pruneAge.run(bounds.beforeMs);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
