import Database from "better-sqlite3";
import { SpendLedgerError } from "./errors";

/** A held claim that this process alone writes a SQLite spend store. */
export interface OwnerLock {
  /** The lock file beside the database. */
  readonly path: string;
  /** Gives the claim up; idempotent. */
  release(): void;
}

/** Path of the lock file that guards the spend store in `databasePath`. */
function ownerLockPath(databasePath: string): string {
  return `${databasePath}.spend-lock`;
}

/**
 * Claims `databasePath` for this process (`what` names it in errors). The claim is an exclusive SQLite lock (`BEGIN
 * EXCLUSIVE` on a small side file, never committed), so it is an OS file lock: a second
 * process trying to claim the same store is refused at once, and the claim of a process that
 * dies, SIGKILL included, is released by the OS with no stale pid to clean up. The spend data
 * file itself stays open to other connections (the quota store shares it).
 *
 * @throws SpendLedgerError `store_locked` when another process owns the store, `store_failure`
 *   when the lock file cannot be opened
 */
export function claimOwnerLock(databasePath: string, what = "SQLite spend store"): OwnerLock {
  const path = ownerLockPath(databasePath);
  let lock: Database.Database;
  try {
    lock = new Database(path, { timeout: 0 });
  } catch (cause) {
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot open the spend store lock file ${path}`,
      cause,
    });
  }
  try {
    lock.pragma("journal_mode = DELETE");
    lock.exec("BEGIN EXCLUSIVE");
  } catch (cause) {
    lock.close();
    if ((cause as { code?: unknown }).code === "SQLITE_BUSY") {
      throw new SpendLedgerError({
        code: "store_locked",
        message:
          `the ${what} ${databasePath} is owned by another process (lock ${path}); ` +
          `one process owns a ${what}; use the Redis store to share budgets across processes`,
        cause,
      });
    }
    throw new SpendLedgerError({
      code: "store_failure",
      message: `cannot lock the spend store ${databasePath}`,
      cause,
    });
  }
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      try {
        lock.exec("ROLLBACK");
      } finally {
        lock.close();
      }
    },
  };
}
