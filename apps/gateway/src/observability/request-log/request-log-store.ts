import { matchesRequestFilter, type RequestFilter } from "./request-filter";
import type { RequestRecord } from "./request-record";

/** What a prune keeps: the newest `maxRecords`, none that arrived before `beforeMs`. */
interface RequestLogBounds {
  maxRecords: number;
  /** Epoch milliseconds. */
  beforeMs: number;
}

/**
 * Where request records are kept: the configured storage driver (a SQLite file, a Redis
 * stream, or a ring in memory). Records are kept in the order written; reads return the
 * newest first.
 */
export interface RequestLogStore {
  /** Appends `records`, oldest first. */
  append(records: readonly RequestRecord[]): Promise<void>;
  /**
   * The records matching `filter`, newest first, at most `filter.limit` in all, a page at a
   * time (an export of the whole log never sits in memory at once).
   */
  pages(filter: RequestFilter): AsyncIterable<RequestRecord[]>;
  /** Removes the records past `bounds`. */
  prune(bounds: RequestLogBounds): Promise<void>;
  close(): Promise<void>;
}

/** Records read from a store per page. */
export const READ_PAGE = 500;

/** Every record `pages` yields, in one array. */
export async function collectPages(
  pages: AsyncIterable<RequestRecord[]>,
): Promise<RequestRecord[]> {
  const out: RequestRecord[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

/**
 * How far before `since` a newest-first scan keeps reading: records are written when their
 * request ends, and replicas flush a little apart, so one that arrived after `since` can sit
 * behind one that ended before it by up to this much. Milliseconds.
 */
const SCAN_SLACK_MS = 60_000;

/**
 * True when a newest-first scan that has reached `record` can stop: it ended so long before
 * `filter.sinceMs` that nothing written before it arrived after `since`.
 */
export function scanPassedSince(record: RequestRecord, filter: RequestFilter): boolean {
  if (filter.sinceMs === undefined) return false;
  return Date.parse(record.at) + record.latencyMs < filter.sinceMs - SCAN_SLACK_MS;
}

/**
 * A request log in process memory (`storage.driver: memory`, tests): a ring of the newest
 * `maxRecords` records, so appending past it drops the oldest at no cost.
 */
export function createMemoryRequestLogStore(options: { maxRecords: number }): RequestLogStore {
  const capacity = options.maxRecords;
  const ring: (RequestRecord | undefined)[] = new Array(capacity);
  let next = 0;
  let size = 0;
  const at = (newest: number) => ring[(next - 1 - newest + capacity * 2) % capacity]!;
  return {
    async append(records) {
      for (const record of records) {
        ring[next] = record;
        next = (next + 1) % capacity;
        if (size < capacity) size++;
      }
    },
    async *pages(filter) {
      let page: RequestRecord[] = [];
      let found = 0;
      for (let i = 0; i < size && found < filter.limit; i++) {
        const record = at(i);
        if (scanPassedSince(record, filter)) break;
        if (!matchesRequestFilter(record, filter)) continue;
        page.push(record);
        found++;
        if (page.length === READ_PAGE) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    },
    async prune(bounds) {
      // The ring already holds at most maxRecords; drop the oldest that are too old.
      while (size > 0 && Date.parse(at(size - 1).at) < bounds.beforeMs) {
        ring[(next - size + capacity) % capacity] = undefined;
        size--;
      }
    },
    async close() {},
  };
}
