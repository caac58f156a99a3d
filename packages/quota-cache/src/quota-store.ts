/**
 * The kinds of data a quota store holds: quota window readings, cooldowns, live overage
 * evidence (ladder.md §14; records keyed `on` / `off`, each the newest observation of its value),
 * and session pins (the session book: a record per session, its hash in place of the connection
 * id, naming the connection that last served it).
 */
export type QuotaStoreBucket = "windows" | "cooldowns" | "evidence" | "sessions";

/** Every bucket, in a fixed order (what a store loads, resyncs and accepts from a backend). */
export const QUOTA_STORE_BUCKETS: readonly QuotaStoreBucket[] = Object.freeze([
  "windows",
  "cooldowns",
  "evidence",
  "sessions",
]);

/**
 * One stored record. `rev` orders writes (epoch ms of the reading or the cooldown): a write with
 * a lower `rev` than the record already held is ignored, so replicas converge on the newest.
 * `value` is plain JSON data. Records are immutable: a write replaces the record, so readers may
 * keep what they derived from one.
 */
export interface QuotaStoreRecord {
  connectionId: string;
  key: string;
  rev: number;
  value: unknown;
}

/**
 * Minimal logger the stores warn through (pino's `logger.warn(obj, msg)` fits). Warnings never
 * carry a credential or a store URL.
 */
export interface QuotaStoreLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Storage behind the quota cache and the cooldown book. Reads are served synchronously from an
 * in-memory mirror; writes update the mirror at once and are persisted by the store (SQLite
 * synchronously, Redis in the background). No method throws on the request path: a failing
 * backend degrades to the mirror and logs one warning.
 */
export interface QuotaStore {
  /** Records of one connection in one bucket, from the mirror. */
  list(bucket: QuotaStoreBucket, connectionId: string): readonly QuotaStoreRecord[];
  /** Connection ids with at least one record in the bucket. */
  connectionIds(bucket: QuotaStoreBucket): readonly string[];
  /** Writes a record unless the store holds the same key with a higher `rev`; true when applied. */
  put(bucket: QuotaStoreBucket, record: QuotaStoreRecord): boolean;
  /** Deletes a record (unconditional). */
  remove(bucket: QuotaStoreBucket, connectionId: string, key: string): void;
  /**
   * P1 single-flight: takes the lease `name` for `holder` for `ttlMs` unless another holder has
   * an unexpired one; true when taken. Atomic across replicas on Redis (`SET NX PX`, Redis's own
   * clock); per process on memory and SQLite (expiry by `nowMs`). Never rejects: an unreachable
   * backend falls back to the per-process lease.
   */
  acquireLease(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean>;
  /** Releases the lease when `holder` still has it; otherwise does nothing. Never rejects. */
  releaseLease(name: string, holder: string): Promise<void>;
  /** Resolves once the initial load is done (or has failed and the store runs on its mirror). */
  ready(): Promise<void>;
  /** Releases connections and file handles; the mirror stays readable. */
  close(): Promise<void>;
}

const NO_RECORDS: readonly QuotaStoreRecord[] = Object.freeze([]);

/** The in-memory mirror every store reads from. Internal to the package. */
interface RecordMirror {
  list(bucket: QuotaStoreBucket, connectionId: string): readonly QuotaStoreRecord[];
  connectionIds(bucket: QuotaStoreBucket): readonly string[];
  all(bucket: QuotaStoreBucket): QuotaStoreRecord[];
  apply(bucket: QuotaStoreBucket, record: QuotaStoreRecord): boolean;
  delete(bucket: QuotaStoreBucket, connectionId: string, key: string): boolean;
}

/**
 * Creates an empty mirror: bucket → connection → key → record. `list` answers with a frozen
 * snapshot of a connection's records, made on the first read after a change and shared by the
 * reads until the next one: every routed request reads its session's pin and its connections'
 * cooldowns, and a copy per read cost about 1 µs a request of event-loop time (the gateway
 * benchmark's CPU profile). A snapshot is never changed, so one taken before a write still
 * lists what it listed.
 */
export function createRecordMirror(): RecordMirror {
  const buckets: Record<QuotaStoreBucket, Map<string, Map<string, QuotaStoreRecord>>> = {
    windows: new Map(),
    cooldowns: new Map(),
    evidence: new Map(),
    sessions: new Map(),
  };
  const snapshots: Record<QuotaStoreBucket, Map<string, readonly QuotaStoreRecord[]>> = {
    windows: new Map(),
    cooldowns: new Map(),
    evidence: new Map(),
    sessions: new Map(),
  };
  return {
    list(bucket, connectionId) {
      const taken = snapshots[bucket].get(connectionId);
      if (taken) return taken;
      const records = buckets[bucket].get(connectionId);
      if (!records) return NO_RECORDS;
      const snapshot = Object.freeze([...records.values()]);
      snapshots[bucket].set(connectionId, snapshot);
      return snapshot;
    },
    connectionIds(bucket) {
      return [...buckets[bucket].keys()];
    },
    all(bucket) {
      return [...buckets[bucket].values()].flatMap((records) => [...records.values()]);
    },
    apply(bucket, record) {
      let records = buckets[bucket].get(record.connectionId);
      const current = records?.get(record.key);
      if (current && current.rev > record.rev) return false;
      if (!records) {
        records = new Map();
        buckets[bucket].set(record.connectionId, records);
      }
      records.set(record.key, record);
      snapshots[bucket].delete(record.connectionId);
      return true;
    },
    delete(bucket, connectionId, key) {
      const records = buckets[bucket].get(connectionId);
      if (!records?.delete(key)) return false;
      snapshots[bucket].delete(connectionId);
      if (records.size === 0) buckets[bucket].delete(connectionId);
      return true;
    },
  };
}

/**
 * Checks a record read back from a backend (SQLite row, Redis hash field, pub/sub message);
 * returns undefined for anything malformed so a corrupt entry is skipped, never thrown.
 */
export function toStoreRecord(
  connectionId: unknown,
  key: unknown,
  rev: unknown,
  value: unknown,
): QuotaStoreRecord | undefined {
  if (typeof connectionId !== "string" || typeof key !== "string") return undefined;
  if (typeof rev !== "number" || !Number.isFinite(rev)) return undefined;
  if (value === null || typeof value !== "object") return undefined;
  return { connectionId, key, rev, value };
}

/** Per-process leases (memory and SQLite stores, and Redis while it is unreachable). */
interface LocalLeases {
  acquire(name: string, holder: string, ttlMs: number, nowMs: number): boolean;
  release(name: string, holder: string): void;
}

/** Creates an empty per-process lease table; expired leases are dropped as they are met. */
export function createLocalLeases(): LocalLeases {
  const leases = new Map<string, { holder: string; untilMs: number }>();
  return {
    acquire(name, holder, ttlMs, nowMs) {
      const current = leases.get(name);
      if (current && current.holder !== holder && current.untilMs > nowMs) return false;
      leases.set(name, { holder, untilMs: nowMs + Math.max(1, ttlMs) });
      return true;
    },
    release(name, holder) {
      if (leases.get(name)?.holder === holder) leases.delete(name);
    },
  };
}

/** Wraps a logger so a backend outage is reported once until the backend recovers. */
export function createOutageReporter(logger: QuotaStoreLogger, store: string) {
  let degraded = false;
  return {
    get degraded() {
      return degraded;
    },
    fail(operation: string, error: unknown): void {
      if (degraded) return;
      degraded = true;
      logger.warn(
        { store, operation, error: error instanceof Error ? error.message : String(error) },
        `quota ${store} store unavailable; serving quota and cooldown state from the local mirror`,
      );
    },
    recover(): void {
      degraded = false;
    },
  };
}

/** Logger used when none is injected: one line on stderr per outage. */
export const consoleStoreLogger: QuotaStoreLogger = {
  warn(details, message) {
    console.warn(message, details);
  },
};
