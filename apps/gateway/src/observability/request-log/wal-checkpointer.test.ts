import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { startWalCheckpointer } from "./wal-checkpointer";

const dir = mkdtempSync(join(tmpdir(), "planfirst-checkpointer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A WAL file whose writer never checkpoints, holding `rows` rows of 4 KB. */
function writer(path: string, rows: number): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (v TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < rows; i++) insert.run("x".repeat(4096));
  return db;
}

const until = async (check: () => boolean, what: string) => {
  for (let tries = 0; tries < 200 && !check(); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(check(), what).toBe(true);
};

describe("the WAL checkpoint thread", () => {
  it("moves what the writer logged into the file once enough is written, the writer checkpointing nothing", async () => {
    const path = join(dir, "moved.db");
    const db = writer(path, 100);
    // Everything is still in the WAL: the file holds its first pages only.
    expect(statSync(path).size).toBeLessThan(100 * 4096);
    const stopped: Error[] = [];
    const checkpointer = startWalCheckpointer(path, 200 * 4096, (error) => stopped.push(error));
    try {
      // Below the threshold: no checkpoint yet.
      checkpointer.written(100 * 4096);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(statSync(path).size).toBeLessThan(100 * 4096);
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      for (let i = 0; i < 100; i++) insert.run("y".repeat(4096));
      checkpointer.written(100 * 4096);
      await until(() => statSync(path).size >= 200 * 4096, "the rows reached the file");
    } finally {
      await checkpointer.close();
      db.close();
    }
    expect(stopped).toEqual([]);
  });

  it("checkpoints what is left when it closes", async () => {
    const path = join(dir, "closed.db");
    const db = writer(path, 50);
    const checkpointer = startWalCheckpointer(path, 1 << 30, () => undefined);
    await checkpointer.close();
    expect(statSync(path).size).toBeGreaterThanOrEqual(50 * 4096);
    db.close();
  });

  it("tells when it stops on its own", async () => {
    const stopped: Error[] = [];
    // A directory is no database file: the thread cannot open it.
    const checkpointer = startWalCheckpointer(dir, 4096, (error) => stopped.push(error));
    await until(() => stopped.length === 1, "the failure was told");
    expect(stopped[0]!.message).toMatch(/SQLITE_CANTOPEN/);
    await checkpointer.close();
  });
});
