import { invalidArgument } from "./errors";
import { createMemoryMinuteSums } from "./memory-minute-sums";
import { minuteOf, minuteSpans } from "./spend-minutes";
import {
  recordMatches,
  type SpendRecord,
  type SpendRecordQuery,
  summarize,
  summaryOfGroups,
} from "./spend-record";
import type {
  SpendStore,
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
} from "./spend-store";
import {
  createWindowBook,
  expireReservations,
  fitsBudget,
  holdReservation,
  takeReservation,
  totalsOf,
  type WindowState,
} from "./window-book";

/** Options of {@link createMemorySpendStore}. */
export interface MemorySpendStoreOptions {
  /**
   * Most spend records `records()` returns, the newest; default 100 000. An older record leaves
   * that list, never the books: its cost stays in its window's spent total.
   */
  maxRecords?: number;
  /**
   * Finished reservation ids remembered, at least this many of the latest; default 100 000. A
   * settle or release repeated within them does nothing, as in every store; one repeated later
   * is not recognised, and a repeated settle then books again: the books over-count, never
   * under-count. The ledger settles or releases each reservation once.
   */
  rememberFinished?: number;
}

/**
 * A spend store held in process memory: for tests, single-process gateways and benchmarks. It
 * forgets everything when the process ends and is not shared between processes; ledgers in one
 * process may share one instance. Operations run synchronously inside the returned promises, so
 * each is atomic in the single JavaScript thread. What it keeps is bounded, so a gateway that
 * runs for months does not grow without end: the live reservations, the latest records and
 * finished ids (see the options), and the window totals (one per rung and window) until a prune
 * forgets the windows that ended before its cutoff.
 */
export function createMemorySpendStore(options: MemorySpendStoreOptions = {}): SpendStore {
  const maxRecords = positiveCount("maxRecords", options.maxRecords ?? 100_000);
  const rememberFinished = positiveCount("rememberFinished", options.rememberFinished ?? 100_000);
  const book = createWindowBook();
  // Two generations of finished ids: when the newer one is full it becomes the older one, and
  // the older one is dropped, so between `rememberFinished` and twice that are remembered.
  let finished = new Set<string>();
  let finishedBefore = new Set<string>();
  const isFinished = (id: string) => finished.has(id) || finishedBefore.has(id);
  /**
   * True when a settle or release of `id` comes after its reservation was finished already. A
   * live reservation is not finished, so the two sets of finished ids are searched only for
   * one that is not live (a repeated or late settle).
   */
  const finishedAlready = (state: WindowState, id: string) => !state.live.has(id) && isFinished(id);
  // Oldest first, each with its time in ms (parsed once, when it is kept). Trimmed a tenth of
  // the bound at a time, so a settle does not move the whole list each time; reads see only the
  // newest `maxRecords`.
  let records: KeptRecord[] = [];
  const trimAt = maxRecords + Math.ceil(maxRecords / 10);
  /**
   * True while the kept records' times never go back (a clock that steps back breaks it): a
   * read then finds its time bounds by binary search and needs no sort.
   */
  let inTimeOrder = true;
  /** The sums of the records reads see (the newest `maxRecords`), per minute and series. */
  const minuteSums = createMemoryMinuteSums();

  /** Removes a live reservation; true when it was live. */
  const finish = (state: WindowState, reservationId: string): boolean => {
    finished.add(reservationId);
    if (finished.size >= rememberFinished) {
      finishedBefore = finished;
      finished = new Set();
    }
    return takeReservation(state, reservationId) !== undefined;
  };

  const keep = (record: SpendRecord): void => {
    const timeMs = Date.parse(record.time);
    const last = records.at(-1);
    if (last !== undefined && !(timeMs >= last.timeMs)) inTimeOrder = false;
    records.push({ record, timeMs });
    minuteSums.add(record, timeMs, 1);
    // The record this one pushed out of the newest `maxRecords` leaves the sums with it.
    const hidden = records[records.length - maxRecords - 1];
    if (hidden !== undefined) minuteSums.add(hidden.record, hidden.timeMs, -1);
    if (records.length >= trimAt) {
      records = records.slice(records.length - maxRecords);
      // The newest part of a list in time order is in time order: only a list that was not is
      // checked again (the record out of order may have left it).
      inTimeOrder ||= records.every(
        (kept, index) => index === 0 || kept.timeMs >= records[index - 1]!.timeMs,
      );
    }
  };

  /** The newest `maxRecords` kept records that `query` selects, in time order. */
  const selected = (query: SpendRecordQuery): KeptRecord[] => {
    const first = Math.max(0, records.length - maxRecords);
    if (!inTimeOrder) {
      return records
        .slice(first)
        .filter(({ record, timeMs }) => recordMatches(record, timeMs, query))
        .sort((a, b) => a.timeMs - b.timeMs);
    }
    const from =
      query.sinceMs === undefined ? first : Math.max(first, firstAtOrAfter(records, query.sinceMs));
    const to =
      query.untilMs === undefined ? records.length : firstAtOrAfter(records, query.untilMs);
    const out: KeptRecord[] = [];
    for (let index = from; index < to; index++) {
      const kept = records[index]!;
      if (recordMatches(kept.record, kept.timeMs, query)) out.push(kept);
    }
    return out;
  };

  return {
    ready: async () => {},
    reserve: async (request: StoreReserveRequest): Promise<StoreReserveResult> => {
      const state = book.state(request.rung, request.windowKey);
      expireReservations(state, request.nowMs);
      const held = state.live.get(request.reservationId);
      if (held || isFinished(request.reservationId)) {
        return { admitted: held !== undefined, ...totalsOf(state) };
      }
      if (!fitsBudget(state, request.amountMicroUsd, request.budgetMicroUsd)) {
        return { admitted: false, ...totalsOf(state) };
      }
      holdReservation(state, request.reservationId, {
        amountMicroUsd: request.amountMicroUsd,
        expiresAtMs: request.expiresAtMs,
      });
      return { admitted: true, ...totalsOf(state) };
    },
    settle: async (request: StoreSettleRequest): Promise<StoreSettleResult> => {
      const state = book.state(request.rung, request.windowKey);
      expireReservations(state, request.nowMs);
      if (finishedAlready(state, request.reservationId)) {
        return { booked: false, ...totalsOf(state) };
      }
      finish(state, request.reservationId);
      state.spentMicroUsd += request.record.costMicroUsd;
      if (request.keepRecord !== false) keep(request.record);
      return { booked: true, ...totalsOf(state) };
    },
    release: async (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
      const state = book.state(request.rung, request.windowKey);
      expireReservations(state, request.nowMs);
      if (finishedAlready(state, request.reservationId)) {
        return { released: false, ...totalsOf(state) };
      }
      const released = finish(state, request.reservationId);
      return { released, ...totalsOf(state) };
    },
    totals: (rung, windowKey, nowMs) => {
      const state = book.peek(rung, windowKey);
      if (!state) return { spentMicroUsd: 0, reservedMicroUsd: 0 };
      expireReservations(state, nowMs);
      return totalsOf(state);
    },
    records: async (query: SpendRecordQuery) => selected(query).map(({ record }) => record),
    summary: async (query: SpendRecordQuery) => {
      // The whole minutes from their sums, the partial ones at either end from their records.
      const spans = minuteSpans(query);
      const summary = summaryOfGroups(spans.minutes ? minuteSums.groups(spans.minutes) : []);
      for (const span of spans.records) {
        summarize(
          selected(span).map(({ record }) => record),
          summary,
        );
      }
      return summary;
    },
    prune: async (beforeMs) => {
      // Records and ended windows: finished ids are bounded already (see the options).
      const cutoff = minuteOf(beforeMs);
      const before = records.length;
      const sumsBefore = minuteSums.size;
      records = records.filter((kept) => kept.timeMs >= cutoff);
      // Summed again from the records reads now see (older ones may have come back into them).
      minuteSums.clear();
      for (const kept of records.slice(-maxRecords)) minuteSums.add(kept.record, kept.timeMs, 1);
      const windows = book.forgetEnded(cutoff);
      return {
        records: before - records.length,
        minuteSums: Math.max(0, sumsBefore - minuteSums.size),
        finishedIds: 0,
        windows,
      };
    },
    close: async () => {},
  };
}

function positiveCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) invalidArgument(name, "a positive integer", value);
  return value;
}

/** A kept record and its time in epoch ms. */
interface KeptRecord {
  record: SpendRecord;
  timeMs: number;
}

/** Index of the first of `records` (in time order) at or after `timeMs`; their length if none. */
function firstAtOrAfter(records: readonly KeptRecord[], timeMs: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (records[middle]!.timeMs < timeMs) low = middle + 1;
    else high = middle;
  }
  return low;
}
