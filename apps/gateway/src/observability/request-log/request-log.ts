import type { RequestFilter } from "./request-filter";
import { collectPages, type RequestLogStore } from "./request-log-store";
import type { RequestRecord } from "./request-record";
import { RequestTrace, type TraceSink } from "./request-trace";

const DAY_MS = 86_400_000;

/** Options of {@link createRequestLog}. */
interface RequestLogOptions {
  /** Where records are kept; null when the log is off (traces are made but never kept). */
  store: RequestLogStore | null;
  /** Clock, epoch milliseconds: arrival instants and the age bound follow it. */
  now: () => number;
  /** Most records the store keeps (`server.requestLog.maxRecords`). */
  maxRecords: number;
  /** Days a record is kept (`server.requestLog.maxAgeDays`). */
  maxAgeDays: number;
  /** Real-time wait before a queued record is written, milliseconds. Default 100. */
  flushIntervalMs?: number;
  /** Records written per store call; a queue this long is written at once. Default 256. */
  batchSize?: number;
  /** Most records waiting to be written; past it the oldest are dropped. Default 10 000. */
  maxQueued?: number;
  /** Told how many queued records were dropped (the queue was full). */
  onDropped?: (count: number) => void;
  /** Told when writing to the store starts failing (once per run of failures). */
  onError?: (error: unknown) => void;
}

/**
 * The request log: every request leaves one record (see `RequestTrace`). Ending a trace only
 * queues it, so the request path never waits on a store; the queue is written in batches after
 * `flushIntervalMs` or as soon as it holds `batchSize` records, in the order requests ended.
 * A queue that cannot be written (the store is down) keeps its newest `maxQueued` records and
 * counts the ones it drops. Records past `maxRecords` or older than `maxAgeDays` are pruned
 * after a write, at most once a minute of the clock.
 */
export interface RequestLog {
  /** False when `server.requestLog.enabled` is false: nothing is kept, reads are empty. */
  readonly enabled: boolean;
  /** A trace for request `requestId` that arrives now with client key `keyId`. */
  begin(requestId: string, keyId: string): RequestTrace;
  /** Records matching `filter`, newest first; every request ended so far is written first. */
  query(filter: RequestFilter): Promise<RequestRecord[]>;
  /** `query` a page at a time (an export). */
  pages(filter: RequestFilter): AsyncIterable<RequestRecord[]>;
  /** Writes what is queued and prunes when due. */
  flush(): Promise<void>;
  /** Writes what is queued and closes the store. */
  close(): Promise<void>;
}

/** Prunes run at most this often (the log's clock), milliseconds. */
const PRUNE_INTERVAL_MS = 60_000;

/** Creates the request log over a store. */
export function createRequestLog(options: RequestLogOptions): RequestLog {
  return options.store === null ? disabledLog(options.now) : keptLog(options.store, options);
}

function keptLog(store: RequestLogStore, options: RequestLogOptions): RequestLog {
  const { now } = options;
  const flushIntervalMs = options.flushIntervalMs ?? 100;
  const batchSize = options.batchSize ?? 256;
  const maxQueued = options.maxQueued ?? 10_000;
  let queue: RequestTrace[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let lastPruneMs = Number.NEGATIVE_INFINITY;
  let failing = false;
  let closed = false;

  function dropOldest(): void {
    const excess = queue.length - maxQueued;
    if (excess <= 0) return;
    queue.splice(0, excess);
    options.onDropped?.(excess);
  }

  const sink: TraceSink = {
    push(trace) {
      if (closed) return;
      queue.push(trace);
      if (queue.length > maxQueued) dropOldest();
      schedule();
    },
  };

  function schedule(): void {
    if (immediate) return;
    if (queue.length >= batchSize) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      immediate = setImmediate(runScheduled);
      return;
    }
    if (!timer) {
      timer = setTimeout(runScheduled, flushIntervalMs);
      timer.unref();
    }
  }

  function runScheduled(): void {
    timer = undefined;
    immediate = undefined;
    flush().catch(() => undefined);
  }

  async function write(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      try {
        await store.append(batch.map((trace) => trace.toRecord()));
      } catch (error) {
        // Kept for the next write, ahead of what came since; the newest win if it overflows.
        queue = [...batch, ...queue];
        dropOldest();
        if (!failing) options.onError?.(error);
        failing = true;
        throw error;
      }
      failing = false;
    }
    const nowMs = now();
    if (nowMs - lastPruneMs >= PRUNE_INTERVAL_MS) {
      lastPruneMs = nowMs;
      // A prune that fails is tried again a minute later; what was written stays written.
      await store
        .prune({ maxRecords: options.maxRecords, beforeMs: nowMs - options.maxAgeDays * DAY_MS })
        .catch((error: unknown) => options.onError?.(error));
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(write, write);
    return flushing;
  }

  return {
    enabled: true,
    begin(requestId, keyId) {
      return new RequestTrace(sink, requestId, keyId, now());
    },
    async query(filter) {
      await flush();
      return collectPages(store.pages(filter));
    },
    async *pages(filter) {
      await flush();
      yield* store.pages(filter);
    },
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      timer = undefined;
      immediate = undefined;
      await flush().catch(() => undefined);
      closed = true;
      await store.close();
    },
  };
}

/** The log of `server.requestLog.enabled: false`: every trace is dropped, every read is empty. */
function disabledLog(now: () => number): RequestLog {
  return {
    enabled: false,
    begin: (requestId, keyId) => new RequestTrace(null, requestId, keyId, now()),
    query: async () => [],
    pages: async function* () {},
    flush: async () => undefined,
    close: async () => undefined,
  };
}
