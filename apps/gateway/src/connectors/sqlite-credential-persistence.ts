import { chmodSync } from "node:fs";
import Database from "better-sqlite3";
import {
  type CredentialPersistence,
  parseStoredCredential,
  type StoredCredential,
  storedCredentialSchema,
} from "./credential-persistence";

/** A {@link CredentialPersistence} on a SQLite file, plus `close()`. */
export interface SqliteCredentialPersistence extends CredentialPersistence {
  /** Closes the database handle. */
  close(): void;
}

/**
 * Keeps credentials in table `planfirst_credentials` of the SQLite file at `path` (created when
 * missing, WAL mode so the gateway and `planfirst login` can share it). The file holds secrets,
 * so it is made readable by its owner only (mode 0600).
 */
export function createSqliteCredentialPersistence(path: string): SqliteCredentialPersistence {
  const db = new Database(path);
  if (path !== ":memory:") chmodSync(path, 0o600);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(
    "CREATE TABLE IF NOT EXISTS planfirst_credentials (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at_ms INTEGER NOT NULL)",
  );
  const select = db.prepare<[string], { value: string }>(
    "SELECT value FROM planfirst_credentials WHERE key = ?",
  );
  const upsert = db.prepare<[string, string, number]>(
    "INSERT INTO planfirst_credentials (key, value, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
  );
  const list = db.prepare<[], { key: string }>(
    "SELECT key FROM planfirst_credentials ORDER BY key",
  );
  return {
    async read(key) {
      const row = select.get(key);
      if (!row) return null;
      return parseStoredCredential(row.value);
    },
    async write(key, credential: StoredCredential) {
      const valid = storedCredentialSchema.parse(credential);
      upsert.run(key, JSON.stringify(valid), valid.updatedAtMs);
    },
    async keys() {
      return list.all().map((row) => row.key);
    },
    close() {
      db.close();
    },
  };
}
