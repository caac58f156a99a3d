import { mkdirSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import Database from "better-sqlite3";
import { INSERT_ROW, type RowColumns, startLogWriter } from "./log-writer";
import { matchesRequestFilter, type RequestFilter } from "./request-filter";
import { READ_PAGE, type RequestLogStore } from "./request-log-store";
import type { RequestRecord } from "./request-record";
import { storedRecordOf } from "./stored-record";

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
 * Page size of a new log file, bytes. A row holds a whole batch of records (up to 256, about
 * 130 KB of JSON), written as a chain of overflow pages, one WAL frame each: with SQLite's
 * default 4 KiB pages an insert took 2.4 µs per record (a standalone insert of such rows into
 * a WAL file), with 16 KiB pages 1.7 µs.
 */
const PAGE_BYTES = 16_384;

/**
 * Bytes logged between two checkpoints of the log's WAL: what SQLite's own threshold (1,000
 * pages) lets it hold in 4 KiB pages.
 */
const CHECKPOINT_EVERY_BYTES = 1000 * 4096;

/**
 * Most rows read per query of a scan; each holds one written batch (up to the log's batch size,
 * 256 records). A scan reads one row first and twice as many each time after, up to this: the
 * newest row usually fills a page of the status page's table (50 records), and each row read
 * is a copy of its text and a parse of its records.
 */
const ROWS_PER_READ = 16;

/**
 * Records per row when rows of the first layout (one row per record) move to batch rows.
 * The log's own batches are at most its batch size (256 by default).
 */
const MIGRATED_BATCH = 256;

type BatchRow = { id: number; records: string };

/**
 * What a row says of its records, so that reads and prunes can pass a row by unread: the
 * earliest and latest arrival, how many, the lowest and highest status, and `tags`, every key
 * id (`k:`), model asked or served (`m:`) and rung (`r:`) among them, each on a line of its
 * own between newlines (see {@link tagNeedle}).
 */
interface BatchSummary {
  firstAtMs: number;
  lastAtMs: number;
  count: number;
  minStatus: number;
  maxStatus: number;
  tags: string;
}

/**
 * The request log in a SQLite file: table `request_log_batch`, one row per written batch (its
 * records as one JSON array, oldest first, with a summary of them: see {@link BatchSummary}),
 * in write order. One row per batch rather than per record: the request path's share of the log
 * is one `JSON.stringify` per record and one row insert per batch, where a row per record cost
 * an insert and an index entry each. Measured in the gateway benchmark (keyless path, CPU
 * profile, event-loop time per request): 12.3 µs with a row per record, 9.7 with a row per
 * batch, 6.1 once the checkpoints left the event loop. The inserts have left it too: rows are
 * written, and the WAL checkpointed, by a thread of their own (log-writer.ts). Inserting a row
 * of 256 records took the event loop 0.3–0.7 ms, handing it to the thread 30 µs (a standalone
 * run, the machine otherwise idle); on a machine whose cores are all busy the thread's work
 * takes its time from the others instead. Reads and prunes run here, on a connection of their
 * own; should the thread stop, rows are written here again. Reads parse the rows newest first
 * and filter the records in process; a row whose summary rules out every filter match (no
 * record of the key, model or rung asked, statuses or arrivals out of range) is skipped
 * unread, so a client key's view of a long log stays cheap. A file of the first layout
 * (`request_log`, one row per record) is moved to batch rows when opened, in one transaction:
 * nothing recorded is lost.
 */
export function createSqliteRequestLogStore(options: { path: string }): RequestLogStore {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  // Set before the first table exists, so only a new file takes it; an existing file keeps its
  // own (the pragma does nothing there).
  db.pragma(`page_size = ${PAGE_BYTES}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.exec(`CREATE TABLE IF NOT EXISTS request_log_batch (
    id INTEGER PRIMARY KEY,
    first_at_ms INTEGER NOT NULL,
    last_at_ms INTEGER NOT NULL,
    count INTEGER NOT NULL,
    min_status INTEGER NOT NULL,
    max_status INTEGER NOT NULL,
    tags TEXT NOT NULL,
    records TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS request_log_batch_last_at ON request_log_batch (last_at_ms);`);
  const insert = db.prepare<RowColumns>(INSERT_ROW);
  moveFirstLayout(db, (records) => insert.run(...rowColumns(records)));
  // Started once the file is ready (a first-layout file moved). `db` keeps SQLite's automatic
  // checkpoints, which follow its own commits only (a prune now and then, every row should the
  // thread stop); the thread's, at a threshold no higher, keep the WAL below them.
  const writer =
    options.path === ":memory:" ? null : startLogWriter(options.path, CHECKPOINT_EVERY_BYTES);

  /** Writes a row of `records`: on the writing thread while it runs, else here. */
  async function insertBatch(records: readonly RequestRecord[]): Promise<void> {
    const columns = rowColumns(records);
    if (writer !== null && writer.failure() === null) return writer.insert(columns);
    insert.run(...columns);
  }

  /**
   * Up to `rows` rows below row `beforeId` that can hold a match of `filter`: its time,
   * status range, key, model and rung are checked against each row's summary.
   */
  function rowsBefore(filter: RequestFilter, beforeId: number, rows: number): BatchRow[] {
    const where = ["id < ?"];
    const values: (number | string)[] = [beforeId];
    const when = (condition: string, value: number | string) => {
      where.push(condition);
      values.push(value);
    };
    if (filter.sinceMs !== undefined) when("last_at_ms >= ?", filter.sinceMs);
    if (filter.untilMs !== undefined) when("first_at_ms < ?", filter.untilMs);
    if (filter.statusMin !== undefined) when("max_status >= ?", filter.statusMin);
    if (filter.statusMax !== undefined) when("min_status <= ?", filter.statusMax);
    if (filter.key !== undefined) when("instr(tags, ?) > 0", tagNeedle("k", filter.key));
    if (filter.model !== undefined) when("instr(tags, ?) > 0", tagNeedle("m", filter.model));
    if (filter.rung !== undefined) when("instr(tags, ?) > 0", tagNeedle("r", filter.rung));
    const sql = `SELECT id, records FROM request_log_batch WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${rows}`;
    return db.prepare(sql).all(...values) as BatchRow[];
  }

  const newestFirst = db.prepare<[], { id: number; count: number }>(
    "SELECT id, count FROM request_log_batch ORDER BY id DESC",
  );
  const olderThanRow = db.prepare<[number]>("DELETE FROM request_log_batch WHERE id < ?");
  const allBefore = db.prepare<[number]>("DELETE FROM request_log_batch WHERE last_at_ms < ?");
  const straddling = db.prepare<[number, number], BatchRow>(
    "SELECT id, records FROM request_log_batch WHERE first_at_ms < ? AND last_at_ms >= ?",
  );
  const rewrite = db.prepare<[...RowColumns, number]>(
    `UPDATE request_log_batch SET first_at_ms = ?, last_at_ms = ?, count = ?, min_status = ?,
       max_status = ?, tags = ?, records = ? WHERE id = ?`,
  );
  const remove = db.prepare<[number]>("DELETE FROM request_log_batch WHERE id = ?");
  const rowById = db.prepare<[number], BatchRow>(
    "SELECT id, records FROM request_log_batch WHERE id = ?",
  );

  /** Keeps the elements of `row` that `keep` admits: rewrites the row, or deletes it. */
  function trimRow(
    row: BatchRow,
    keep: (value: unknown, index: number, all: unknown[]) => boolean,
  ): void {
    const kept = parseBatch(row.records).filter(keep);
    if (kept.length === 0) {
      remove.run(row.id);
      return;
    }
    rewrite.run(...rowColumns(kept), row.id);
  }

  const pruneCount = db.transaction((maxRecords: number) => {
    // The row holding the oldest records kept, and how many of its newest records stay.
    let boundary: { id: number; room: number } | null = null;
    let kept = 0;
    for (const { id, count } of newestFirst.iterate()) {
      if (kept + count > maxRecords) {
        boundary = { id, room: maxRecords - kept };
        break;
      }
      kept += count;
    }
    if (boundary === null) return;
    const { id, room } = boundary;
    olderThanRow.run(id);
    trimRow(rowById.get(id)!, (_value, index, all) => index >= all.length - room);
  });

  const pruneAge = db.transaction((beforeMs: number) => {
    allBefore.run(beforeMs);
    for (const row of straddling.all(beforeMs, beforeMs)) {
      trimRow(row, (value) => !(arrivalMs(value) < beforeMs));
    }
  });

  return {
    async append(records) {
      if (records.length > 0) await insertBatch(records);
    },
    async *pages(filter) {
      let beforeId = Number.MAX_SAFE_INTEGER;
      let left = filter.limit;
      let page: RequestRecord[] = [];
      let rowsPerRead = 1;
      while (left > 0) {
        // A long scan lets other work in between its reads.
        if (beforeId !== Number.MAX_SAFE_INTEGER) await new Promise((go) => setImmediate(go));
        const rows = rowsBefore(filter, beforeId, rowsPerRead);
        if (rows.length === 0) break;
        beforeId = rows.at(-1)!.id;
        rowsPerRead = Math.min(ROWS_PER_READ, rowsPerRead * 2);
        for (const row of rows) {
          if (left === 0) break;
          const values = parseBatch(row.records);
          for (let index = values.length - 1; index >= 0 && left > 0; index--) {
            const value = values[index];
            // A cheap test first, then the record's check, then the test again on what passed.
            if (typeof value !== "object" || value === null) continue;
            if (!matchesRequestFilter(value as RequestRecord, filter)) continue;
            const record = storedRecordOf(value);
            if (record === null || !matchesRequestFilter(record, filter)) continue;
            page.push(record);
            left--;
            if (page.length === READ_PAGE) {
              yield page;
              page = [];
            }
          }
        }
      }
      if (page.length > 0) yield page;
    },
    async prune(bounds) {
      pruneCount(bounds.maxRecords);
      pruneAge(bounds.beforeMs);
    },
    async close() {
      await writer?.close();
      if (db.open) db.close();
    },
  };
}

/**
 * The elements of a stored batch, oldest first: anything (each is checked as a record before
 * it is returned); empty when the text is not a JSON array.
 */
function parseBatch(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * The summary of a batch's elements (see {@link BatchSummary}). An element that is not a record
 * adds what it has; with no instant or status at all, those bounds are 0.
 */
function summaryOf(elements: readonly unknown[]): BatchSummary {
  let firstAtMs = Number.POSITIVE_INFINITY;
  let lastAtMs = Number.NEGATIVE_INFINITY;
  let minStatus = Number.POSITIVE_INFINITY;
  let maxStatus = Number.NEGATIVE_INFINITY;
  const tags = new Set<string>();
  const tag = (kind: string, value: unknown) => {
    if (typeof value === "string") tags.add(`${kind}:${value}`);
  };
  for (const element of elements) {
    const atMs = arrivalMs(element);
    if (atMs < firstAtMs) firstAtMs = atMs;
    if (atMs > lastAtMs) lastAtMs = atMs;
    const record = element as Partial<RequestRecord> | null;
    const status = record?.status;
    if (typeof status === "number") {
      if (status < minStatus) minStatus = status;
      if (status > maxStatus) maxStatus = status;
    }
    tag("k", record?.keyId);
    tag("m", record?.modelAsked);
    tag("m", record?.modelServed);
    tag("r", record?.rung);
  }
  const bounded = (value: number) => (Number.isFinite(value) ? value : 0);
  return {
    firstAtMs: bounded(firstAtMs),
    lastAtMs: bounded(lastAtMs),
    count: elements.length,
    minStatus: bounded(minStatus),
    maxStatus: bounded(maxStatus),
    tags: `\n${[...tags].join("\n")}\n`,
  };
}

/** The columns of a row holding `elements`, as insert and rewrite write them. */
function rowColumns(elements: readonly unknown[]): RowColumns {
  const { firstAtMs, lastAtMs, count, minStatus, maxStatus, tags } = summaryOf(elements);
  return [firstAtMs, lastAtMs, count, minStatus, maxStatus, tags, JSON.stringify(elements)];
}

/** What `tags` holds for a `kind:value` tag: the tag between newlines. */
function tagNeedle(kind: string, value: string): string {
  return `\n${kind}:${value}\n`;
}

/** When an element of a batch arrived, epoch ms; NaN when it names no instant. */
function arrivalMs(value: unknown): number {
  const at = (value as { at?: unknown } | null)?.at;
  return typeof at === "string" ? Date.parse(at) : Number.NaN;
}

/**
 * Moves the rows of the first layout (`request_log`, one row per record) into batch rows, in
 * write order, and drops the old table, all in one transaction; nothing when there is none.
 * A row whose text is not JSON is left behind: no read could ever have returned it.
 */
function moveFirstLayout(
  db: Database.Database,
  insertBatch: (records: readonly RequestRecord[]) => void,
): void {
  const old = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'request_log'")
    .get();
  if (old === undefined) return;
  const nextRows = db.prepare<[number, number], { id: number; record: string }>(
    "SELECT id, record FROM request_log WHERE id > ? ORDER BY id LIMIT ?",
  );
  db.transaction(() => {
    let afterId = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const rows = nextRows.all(afterId, MIGRATED_BATCH);
      if (rows.length === 0) break;
      afterId = rows.at(-1)!.id;
      const batch: RequestRecord[] = [];
      for (const { record } of rows) {
        try {
          batch.push(JSON.parse(record) as RequestRecord);
        } catch {
          // Not JSON: see above.
        }
      }
      if (batch.length > 0) insertBatch(batch);
    }
    db.exec("DROP TABLE request_log");
  })();
}
