import {
  bucketStart,
  emptyBucket,
  HISTORY_RETENTION_MS,
  type HistoryBucket,
  mergeBucket,
  type StatusHistoryStore,
} from "./history-store";

/** The last request a routing id (the model id a client asked for) was served on. */
export interface ServedRecord {
  /** The id the client asked for: `auto/thrifty`, `auto/coding:subscription`, a concrete model. */
  modelId: string;
  rung: string;
  connection: string;
  /** The concrete model that answered. */
  model: string;
  /** Epoch milliseconds the answer began. */
  atMs: number;
}

/** Options of {@link createStatusTracker}. */
interface StatusTrackerOptions {
  store: StatusHistoryStore;
  /** Clock, epoch milliseconds. */
  now: () => number;
  /** Real-time interval between writes of the pending bucket to the store. Default 30 000 ms. */
  flushIntervalMs?: number;
  /** Failed writes are reported here (never thrown into a request). */
  onError?: (error: unknown) => void;
}

/**
 * What the status page remembers beyond live state: the last served rung per routing id, and
 * the history (requests per rung, level readings) of five-minute buckets, written to the
 * configured store every `flushIntervalMs` and on `close()`. Recording is synchronous and only
 * touches memory, so it costs the request path a Map update.
 */
export interface StatusTracker {
  /** The dispatcher served a request (see `observeServed`). */
  served(record: ServedRecord): void;
  /** The last served request per routing id. */
  lastServed(): Record<string, ServedRecord>;
  /** Records level readings (`remaining:<connection>:<window>`, `spent:<rung>`) now. */
  recordLevels(levels: Readonly<Record<string, number>>): void;
  /** Stored history merged with what is not written yet, buckets with `fromMs <= startMs < toMs`. */
  history(fromMs: number, toMs: number): Promise<HistoryBucket[]>;
  /** Calls `listener` after every served request; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /**
   * Starts the real-time flush timer; each tick first takes a level reading with `sample`, so
   * the history keeps going when nobody has the page open.
   */
  start(sample: () => Readonly<Record<string, number>>): void;
  /** Writes pending buckets and prunes buckets past the retention (7 days). */
  flush(): Promise<void>;
  /** Stops the timer, flushes and closes the store. */
  close(): Promise<void>;
}

/** Creates a tracker over a history store. */
export function createStatusTracker(options: StatusTrackerOptions): StatusTracker {
  const { store, now } = options;
  const last = new Map<string, ServedRecord>();
  const listeners = new Set<() => void>();
  let pending = new Map<number, HistoryBucket>();
  let timer: NodeJS.Timeout | undefined;
  let lastPruneMs = Number.NEGATIVE_INFINITY;
  let flushing: Promise<void> = Promise.resolve();

  function pendingBucket(atMs: number): HistoryBucket {
    const startMs = bucketStart(atMs);
    let bucket = pending.get(startMs);
    if (!bucket) {
      bucket = emptyBucket(startMs);
      pending.set(startMs, bucket);
    }
    return bucket;
  }

  function recordLevels(levels: Readonly<Record<string, number>>): void {
    const atMs = now();
    const bucket = pendingBucket(atMs);
    for (const [series, value] of Object.entries(levels)) {
      if (Number.isFinite(value)) bucket.levels[series] = { value, atMs };
    }
  }

  async function writePending(): Promise<void> {
    const batch = [...pending.values()];
    pending = new Map();
    if (batch.length > 0) {
      try {
        await store.add(batch);
      } catch (error) {
        // Kept for the next flush rather than lost: merge back under anything recorded since.
        for (const bucket of batch) mergeBucket(pendingBucket(bucket.startMs), bucket);
        throw error;
      }
    }
    const nowMs = now();
    if (nowMs - lastPruneMs >= 3_600_000) {
      lastPruneMs = nowMs;
      await store.prune(nowMs - HISTORY_RETENTION_MS);
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(writePending, writePending);
    return flushing;
  }

  return {
    served(record) {
      last.set(record.modelId, record);
      const bucket = pendingBucket(record.atMs);
      bucket.requests[record.rung] = (bucket.requests[record.rung] ?? 0) + 1;
      for (const listener of listeners) listener();
    },
    lastServed() {
      return Object.fromEntries(last);
    },
    recordLevels,
    async history(fromMs, toMs) {
      const stored = await store.read(fromMs, toMs);
      const byStart = new Map(stored.map((bucket) => [bucket.startMs, bucket]));
      for (const bucket of pending.values()) {
        if (bucket.startMs < fromMs || bucket.startMs >= toMs) continue;
        const held = byStart.get(bucket.startMs);
        if (held) mergeBucket(held, bucket);
        else byStart.set(bucket.startMs, structuredClone(bucket));
      }
      return [...byStart.values()].sort((a, b) => a.startMs - b.startMs);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start(sample) {
      if (timer) return;
      timer = setInterval(() => {
        try {
          recordLevels(sample());
        } catch (error) {
          options.onError?.(error);
        }
        flush().catch((error: unknown) => options.onError?.(error));
      }, options.flushIntervalMs ?? 30_000);
      timer.unref();
    },
    flush,
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush().catch((error: unknown) => options.onError?.(error));
      await store.close();
    },
  };
}
