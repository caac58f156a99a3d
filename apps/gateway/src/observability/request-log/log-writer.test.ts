import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type RowColumns, startLogWriter } from "./log-writer";

const dir = mkdtempSync(join(tmpdir(), "planfirst-log-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A request log file in WAL mode, with its table and nothing in it; closed again. */
function logFile(name: string): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE request_log_batch (
    id INTEGER PRIMARY KEY, first_at_ms INTEGER NOT NULL, last_at_ms INTEGER NOT NULL,
    count INTEGER NOT NULL, min_status INTEGER NOT NULL, max_status INTEGER NOT NULL,
    tags TEXT NOT NULL, records TEXT NOT NULL)`);
  db.close();
  return path;
}

/** Row `n`, its records `bytes` long. */
const row = (n: number, bytes = 16): RowColumns => [
  n,
  n,
  1,
  200,
  200,
  "\nk:a\n",
  "x".repeat(bytes),
];

/** The rows' `first_at_ms` in the file, in row order, read by a connection of its own. */
function writtenRows(path: string): number[] {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare("SELECT first_at_ms FROM request_log_batch ORDER BY id").all();
  db.close();
  return rows.map((r) => (r as { first_at_ms: number }).first_at_ms);
}

describe("the request log's writing thread", () => {
  it("writes the rows handed over in order, each committed when its promise resolves", async () => {
    const path = logFile("order.db");
    const writer = startLogWriter(path, 1 << 30);
    try {
      // Handed over together, before any is answered.
      await Promise.all([1, 2, 3].map((n) => writer.insert(row(n))));
      expect(writtenRows(path)).toEqual([1, 2, 3]);
      await writer.insert(row(4));
      expect(writtenRows(path)).toEqual([1, 2, 3, 4]);
    } finally {
      await writer.close();
    }
    expect(writer.failure()).toBeNull();
  });

  it("checkpoints the WAL into the file once about the threshold was logged", async () => {
    const path = logFile("checkpointed.db");
    const writer = startLogWriter(path, 64 * 4096);
    try {
      const sizeBefore = statSync(path).size;
      // 40 rows of 16 KB: past the threshold (256 KB) twice over.
      for (let n = 0; n < 40; n++) await writer.insert(row(n, 16_384));
      expect(statSync(path).size).toBeGreaterThan(sizeBefore + 256 * 1024);
    } finally {
      await writer.close();
    }
  });

  it("checkpoints what is left when it closes", async () => {
    const path = logFile("closed.db");
    const writer = startLogWriter(path, 1 << 30);
    for (let n = 0; n < 20; n++) await writer.insert(row(n, 16_384));
    // Below the threshold: all of it is still in the WAL.
    expect(statSync(path).size).toBeLessThan(20 * 16_384);
    await writer.close();
    expect(statSync(path).size).toBeGreaterThanOrEqual(20 * 16_384);
    expect(writtenRows(path)).toHaveLength(20);
  });

  it("refuses a row it cannot write, saying why, and writes the rows after it", async () => {
    const path = logFile("refused.db");
    const writer = startLogWriter(path, 1 << 30);
    try {
      const broken = row(1);
      (broken as unknown[])[5] = null;
      await expect(writer.insert(broken)).rejects.toThrow(/NOT NULL/);
      await writer.insert(row(2));
      expect(writtenRows(path)).toEqual([2]);
      expect(writer.failure()).toBeNull();
    } finally {
      await writer.close();
    }
  });

  it("tells when it stops on its own, and refuses every row after", async () => {
    // A directory is no database file: the thread cannot open it.
    const writer = startLogWriter(dir, 4096);
    await expect(writer.insert(row(1))).rejects.toThrow(/SQLITE_CANTOPEN|unable to open/);
    expect(writer.failure()?.message).toMatch(/SQLITE_CANTOPEN|unable to open/);
    await expect(writer.insert(row(2))).rejects.toThrow(/SQLITE_CANTOPEN|unable to open/);
    await writer.close();
  });
});
