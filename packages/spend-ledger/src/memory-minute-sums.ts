import { minuteOf } from "./spend-minutes";
import {
  type RecordGroup,
  recordMatches,
  type SpendRecord,
  type SpendRecordQuery,
} from "./spend-record";

/** One series' sums in one minute: a group, with the fields a summary's query filters on. */
interface SeriesSums extends RecordGroup {
  readonly windowKey: string;
  readonly clientKeyId: string | null;
}

/**
 * The memory store's minute sums: its visible records summed per minute and per series (budget
 * window, rung, connection, model, client key), as the SQLite and Redis stores keep theirs, so a
 * summary over a long or busy range adds up one group per minute and series instead of every
 * record (see `minuteSpans`).
 */
interface MemoryMinuteSums {
  /** Adds `record` (at `timeMs`) to its minute's series, or takes it out when `sign` is -1. */
  add(record: SpendRecord, timeMs: number, sign: 1 | -1): void;
  /** The groups of the whole minutes `query` bounds that its rung, key and window select. */
  groups(query: SpendRecordQuery): RecordGroup[];
  /** Forgets every sum. */
  clear(): void;
  /** How many series sums are kept, over every minute. */
  readonly size: number;
}

/** Creates empty {@link MemoryMinuteSums}. */
export function createMemoryMinuteSums(): MemoryMinuteSums {
  const minutes = new Map<number, Map<string, SeriesSums>>();
  let size = 0;
  return {
    add(record, timeMs, sign) {
      const minute = minuteOf(timeMs);
      let series = minutes.get(minute);
      if (series === undefined) {
        series = new Map();
        minutes.set(minute, series);
      }
      const { windowKey, rung, connectionId, model, clientKeyId } = record;
      // Each part prefixed by its length: no two series share an id, whatever their names hold.
      const key = clientKeyId === null ? "-" : `${clientKeyId.length}:${clientKeyId}`;
      const id = `${windowKey.length}:${windowKey}${rung.length}:${rung}${connectionId.length}:${connectionId}${model.length}:${model}${key}`;
      let sums = series.get(id);
      if (sums === undefined) {
        sums = { windowKey, clientKeyId, rung, connectionId, model, ...zero() };
        series.set(id, sums);
        size += 1;
      }
      sums.requests += sign;
      sums.costMicroUsd += sign * record.costMicroUsd;
      sums.inputTokens += sign * record.inputTokens;
      sums.outputTokens += sign * record.outputTokens;
      sums.cachedInputTokens += sign * record.cachedInputTokens;
      sums.cacheWriteTokens += sign * record.cacheWriteTokens;
      if (sums.requests === 0) {
        series.delete(id);
        size -= 1;
        if (series.size === 0) minutes.delete(minute);
      }
    },
    groups(query) {
      const groups: RecordGroup[] = [];
      for (const [minute, series] of minutes) {
        for (const sums of series.values()) {
          if (recordMatches(sums, minute, query)) groups.push(sums);
        }
      }
      return groups;
    },
    clear() {
      minutes.clear();
      size = 0;
    },
    get size() {
      return size;
    },
  };
}

function zero() {
  return {
    requests: 0,
    costMicroUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
  };
}
