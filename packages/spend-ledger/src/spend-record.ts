import { type MicroUsd, microToUsd } from "./money";

/** One settled request, as the CLI and the status page read it. */
export interface SpendRecord {
  /** ISO-8601 instant the cost was booked (when `settle()` ran). */
  time: string;
  /** Budget window the cost counts against: the window in which the request was reserved. */
  windowKey: string;
  rung: string;
  connectionId: string;
  model: string;
  /** All prompt tokens, cached reads and cache writes included. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** Actual cost in integer micro-USD. */
  costMicroUsd: MicroUsd;
  /** `costMicroUsd` in USD, for display. */
  costUsd: number;
  /** Worst-case amount that was reserved for the request, in micro-USD. */
  reservedMicroUsd: MicroUsd;
  /** Id of the client key that made the request (never the key itself); null when unknown. */
  clientKeyId: string | null;
  requestId: string;
  /** Id of the reservation the record settled; unique per record. */
  reservationId: string;
}

/** The second of the last {@link recordTime}, and its ISO text up to the milliseconds. */
let lastSecond = Number.NaN;
let secondPrefix = "";

/**
 * `new Date(ms).toISOString()`, the form of {@link SpendRecord.time}, without a Date and a full
 * format per record: settles come many per second, so the text up to the second is kept from the
 * last call and only the milliseconds are written. A non-integer instant takes the full format.
 */
export function recordTime(ms: number): string {
  if (!Number.isSafeInteger(ms)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    secondPrefix = new Date(ms).toISOString().slice(0, -4);
    lastSecond = second;
  }
  const milli = ms - second * 1000;
  return `${secondPrefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

/** Filter for `records()`. Bounds are epoch milliseconds on `time`: `sinceMs` ≤ time < `untilMs`. */
export interface SpendRecordQuery {
  sinceMs?: number;
  untilMs?: number;
  rung?: string;
  /** Only the records of this client key id. */
  clientKeyId?: string;
  /** Only the records booked in this budget window (`SpendRecord.windowKey`). */
  windowKey?: string;
}

/** Sums of a group of records. */
export interface SpendTotals {
  requests: number;
  costMicroUsd: MicroUsd;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/** Totals of a set of records overall and per rung, connection and model. */
export interface SpendSummary {
  total: SpendTotals;
  byRung: Record<string, SpendTotals>;
  byConnection: Record<string, SpendTotals>;
  byModel: Record<string, SpendTotals>;
}

/**
 * Sums records exactly (integer micro-USD) overall and grouped by rung, by connection and by
 * model. `costUsd` of each group is derived from its micro-USD sum, never summed as floats.
 * `into` (a summary from an earlier call) is added to and returned: records read in pages are
 * summed a page at a time.
 */
export function summarize(
  records: Iterable<SpendRecord>,
  into: SpendSummary = emptySummary(),
): SpendSummary {
  for (const record of records) addToSummary(into, record, 1);
  return into;
}

/**
 * The sums of a group of records that share rung, connection and model: what a store that sums
 * where it keeps the records (see `SpendStore.summary`) hands to {@link summaryOfGroups}.
 */
export interface RecordGroup {
  rung: string;
  connectionId: string;
  model: string;
  requests: number;
  costMicroUsd: MicroUsd;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/** The {@link SpendSummary} of records already summed per (rung, connection, model). */
export function summaryOfGroups(groups: Iterable<RecordGroup>): SpendSummary {
  const summary = emptySummary();
  for (const group of groups) addToSummary(summary, group, group.requests);
  return summary;
}

function emptySummary(): SpendSummary {
  return { total: emptyTotals(), byRung: {}, byConnection: {}, byModel: {} };
}

/** Adds `requests` requests whose sums are `sums` to the summary's total and to its groups. */
function addToSummary(
  summary: SpendSummary,
  sums: Omit<RecordGroup, "requests">,
  requests: number,
): void {
  add(summary.total, sums, requests);
  add(groupOf(summary.byRung, sums.rung), sums, requests);
  add(groupOf(summary.byConnection, sums.connectionId), sums, requests);
  add(groupOf(summary.byModel, sums.model), sums, requests);
}

function groupOf(groups: Record<string, SpendTotals>, key: string): SpendTotals {
  const existing = Object.hasOwn(groups, key) ? groups[key] : undefined;
  if (existing) return existing;
  const created = emptyTotals();
  Object.defineProperty(groups, key, { value: created, enumerable: true, writable: true });
  return created;
}

function emptyTotals(): SpendTotals {
  return {
    requests: 0,
    costMicroUsd: 0,
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
  };
}

function add(
  totals: SpendTotals,
  sums: Pick<
    RecordGroup,
    "costMicroUsd" | "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteTokens"
  >,
  requests: number,
): void {
  totals.requests += requests;
  totals.costMicroUsd += sums.costMicroUsd;
  totals.costUsd = microToUsd(totals.costMicroUsd);
  totals.inputTokens += sums.inputTokens;
  totals.outputTokens += sums.outputTokens;
  totals.cachedInputTokens += sums.cachedInputTokens;
  totals.cacheWriteTokens += sums.cacheWriteTokens;
}

/**
 * True when the record's time lies inside the query's bounds, rung, client key and budget
 * window; also what selects the memory store's minute sums, each at its minute's start.
 */
export function recordMatches(
  record: Pick<SpendRecord, "rung" | "clientKeyId" | "windowKey">,
  timeMs: number,
  query: SpendRecordQuery,
): boolean {
  if (query.rung !== undefined && record.rung !== query.rung) return false;
  if (query.clientKeyId !== undefined && record.clientKeyId !== query.clientKeyId) return false;
  if (query.windowKey !== undefined && record.windowKey !== query.windowKey) return false;
  if (query.sinceMs !== undefined && timeMs < query.sinceMs) return false;
  if (query.untilMs !== undefined && timeMs >= query.untilMs) return false;
  return true;
}
