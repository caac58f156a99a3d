import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";
import type { StoreReleaseRequest, StoreSettleRequest } from "./spend-store";
import { claimOwnerLock, type OwnerLock } from "./sqlite-owner-lock";

/** A settle or release that could not reach the spend store, kept to be replayed. */
export type JournalEntry =
  | { kind: "settle"; request: StoreSettleRequest }
  | { kind: "release"; request: StoreReleaseRequest };

/**
 * Where a shared spend store keeps the finishing writes it could not deliver. One entry per
 * reservation id (the first one wins, as in the store: a reservation is finished at most once).
 */
export interface SettleJournal {
  /** Durable once it returns (SQLite journal); false when the id already has an entry. */
  add(entry: JournalEntry): boolean;
  /** Entries in the order they were added. */
  entries(): JournalEntry[];
  /** Drops the entry of a reservation id once the store has it. */
  remove(reservationId: string): void;
  size(): number;
  close(): void;
}

/** A journal in process memory: survives an outage of the store, not a restart of the process. */
export function createMemoryJournal(): SettleJournal {
  const entries = new Map<string, JournalEntry>();
  return {
    add(entry) {
      const id = entry.request.reservationId;
      if (entries.has(id)) return false;
      entries.set(id, entry);
      return true;
    },
    entries: () => [...entries.values()],
    remove: (id) => {
      entries.delete(id);
    },
    size: () => entries.size,
    close: () => {},
  };
}

/**
 * A journal in a SQLite file (`synchronous=FULL`, so an entry survives SIGKILL and power loss
 * once `add` returned), owned by one process like the SQLite spend store.
 *
 * @throws SpendLedgerError `store_locked` when another process owns the file, `store_failure`
 *   when it cannot be opened
 */
export function createSqliteJournal(path: string): SettleJournal {
  const lock: OwnerLock = claimOwnerLock(path, "spend journal");
  let db: Database.Database;
  try {
    db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec(`CREATE TABLE IF NOT EXISTS spend_journal (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      reservation_id TEXT NOT NULL UNIQUE,
      entry TEXT NOT NULL
    )`);
  } catch (cause) {
    lock.release();
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot open the spend journal ${path}`,
      cause,
    });
  }
  const insert = db.prepare<[string, string]>(
    "INSERT OR IGNORE INTO spend_journal (reservation_id, entry) VALUES (?, ?)",
  );
  const select = db.prepare<[], { entry: string }>("SELECT entry FROM spend_journal ORDER BY seq");
  const remove = db.prepare<[string]>("DELETE FROM spend_journal WHERE reservation_id = ?");
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM spend_journal");
  return {
    add: (entry) => insert.run(entry.request.reservationId, JSON.stringify(entry)).changes === 1,
    entries: () => select.all().map((row) => JSON.parse(row.entry) as JournalEntry),
    remove: (id) => {
      remove.run(id);
    },
    size: () => count.get()?.n ?? 0,
    close: () => {
      try {
        if (db.open) db.close();
      } finally {
        lock.release();
      }
    },
  };
}
