/** Width of one history bucket: five minutes, in milliseconds. */
export const HISTORY_BUCKET_MS = 300_000;

/** How long history is kept before it is pruned: seven days, in milliseconds. */
export const HISTORY_RETENTION_MS = 7 * 86_400_000;

/** A level series' last reading in a bucket (remaining percent, spend in the budget window). */
interface LevelReading {
  value: number;
  /** Epoch milliseconds of the reading. */
  atMs: number;
}

/** What happened in one five-minute bucket. */
export interface HistoryBucket {
  /** Epoch milliseconds the bucket starts at (a multiple of {@link HISTORY_BUCKET_MS}). */
  startMs: number;
  /** Requests served per rung (`none` = answered with an error), summed over replicas. */
  requests: Record<string, number>;
  /**
   * Last reading per level series: `remaining:<connection>:<window>` (0..100) and
   * `spent:<rung>` (USD spent in the budget window). Later readings replace earlier ones.
   */
  levels: Record<string, LevelReading>;
}

/**
 * Where the status history is kept: the gateway's configured store (SQLite table in the state
 * file, Redis keys under the gateway's key prefix, or memory), so a restart does not blank the
 * charts. Request counts add up across writers; levels keep the latest reading.
 */
export interface StatusHistoryStore {
  /** Adds each bucket's request counts to what is stored and replaces its levels when newer. */
  add(buckets: readonly HistoryBucket[]): Promise<void>;
  /** Buckets with `fromMs <= startMs < toMs`, oldest first. */
  read(fromMs: number, toMs: number): Promise<HistoryBucket[]>;
  /** Drops buckets that start before `beforeMs`. */
  prune(beforeMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The start of the bucket holding `ms`. */
export function bucketStart(ms: number): number {
  return Math.floor(ms / HISTORY_BUCKET_MS) * HISTORY_BUCKET_MS;
}

/** Adds `from` into `into` (counts summed, newer levels kept). */
export function mergeBucket(into: HistoryBucket, from: HistoryBucket): void {
  for (const [rung, count] of Object.entries(from.requests)) {
    into.requests[rung] = (into.requests[rung] ?? 0) + count;
  }
  for (const [series, reading] of Object.entries(from.levels)) {
    const held = into.levels[series];
    if (!held || held.atMs <= reading.atMs) into.levels[series] = { ...reading };
  }
}

/** An empty bucket starting at `startMs`. */
export function emptyBucket(startMs: number): HistoryBucket {
  return { startMs, requests: {}, levels: {} };
}

/** A history store in process memory (tests, `storage.driver: memory`). */
export function createMemoryHistoryStore(): StatusHistoryStore {
  const buckets = new Map<number, HistoryBucket>();
  return {
    async add(added) {
      for (const bucket of added) {
        let held = buckets.get(bucket.startMs);
        if (!held) {
          held = emptyBucket(bucket.startMs);
          buckets.set(bucket.startMs, held);
        }
        mergeBucket(held, bucket);
      }
    },
    async read(fromMs, toMs) {
      return [...buckets.values()]
        .filter((bucket) => bucket.startMs >= fromMs && bucket.startMs < toMs)
        .sort((a, b) => a.startMs - b.startMs)
        .map((bucket) => structuredClone(bucket));
    },
    async prune(beforeMs) {
      for (const startMs of buckets.keys()) if (startMs < beforeMs) buckets.delete(startMs);
    },
    async close() {},
  };
}
