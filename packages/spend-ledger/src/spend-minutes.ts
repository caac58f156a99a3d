import type { SpendRecordQuery } from "./spend-record";

/**
 * Per-minute sums of the spend records, kept by every store beside the records
 * so that a summary over a long or busy time range reads one row per minute and series instead
 * of every record in it.
 */

/** Milliseconds of one minute of sums. */
export const MINUTE = 60_000;

/** The start of the minute of sums that holds an instant: the minute at or before it. */
export function minuteOf(timeMs: number): number {
  return timeMs - (((timeMs % MINUTE) + MINUTE) % MINUTE);
}

/**
 * How a summary over `query`'s time range is read: the whole minutes inside it from the minute
 * sums (`minutes`, its time bounds being minute starts), and the records of the partial
 * minutes at either end (`records`, zero to two ranges). A range within one minute is read from
 * the records alone. Where the sums begin only at `sumsFromMs` (a minute start: records older
 * than that have none), everything before it is read from the records too, and where they are
 * to end at `sumsUntilMs` (a minute start), everything from it on. Every record of the range is
 * in exactly one part.
 */
export function minuteSpans(
  query: SpendRecordQuery,
  sumsFromMs?: number,
  sumsUntilMs?: number,
): { minutes: SpendRecordQuery | null; records: SpendRecordQuery[] } {
  const { sinceMs, untilMs } = query;
  // The first whole minute starts at or after sinceMs (and sumsFromMs); the last one ends at or
  // before untilMs (and sumsUntilMs).
  let from = sinceMs === undefined ? undefined : -minuteOf(-sinceMs);
  if (sumsFromMs !== undefined && (from === undefined || from < sumsFromMs)) from = sumsFromMs;
  let to = untilMs === undefined ? undefined : minuteOf(untilMs);
  if (sumsUntilMs !== undefined && (to === undefined || to > sumsUntilMs)) to = sumsUntilMs;
  if (from !== undefined && to !== undefined && from >= to) {
    return { minutes: null, records: [query] };
  }
  const records: SpendRecordQuery[] = [];
  if (from !== undefined && (sinceMs === undefined || sinceMs < from)) {
    records.push({ ...query, untilMs: from });
  }
  if (to !== undefined && (untilMs === undefined || to < untilMs)) {
    records.push({ ...query, sinceMs: to });
  }
  return { minutes: { ...query, sinceMs: from, untilMs: to }, records };
}
