import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";
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

/**
 * A spend store held in process memory: for tests, single-process gateways and benchmarks. It
 * forgets everything when the process ends and is not shared between processes; ledgers in one
 * process may share one instance. Operations run synchronously inside the returned promises, so
 * each is atomic in the single JavaScript thread.
 */
export function createMemorySpendStore(): SpendStore {
  const book = createWindowBook();
  const finished = new Set<string>();
  const records: SpendRecord[] = [];

  /** Removes a live reservation; true when it was live. */
  const finish = (state: WindowState, reservationId: string): boolean => {
    finished.add(reservationId);
    return takeReservation(state, reservationId) !== undefined;
  };

  return {
    ready: async () => {},
    reserve: async (request: StoreReserveRequest): Promise<StoreReserveResult> => {
      const state = book.state(request.rung, request.windowKey);
      expireReservations(state, request.nowMs);
      const held = state.live.get(request.reservationId);
      if (held || finished.has(request.reservationId)) {
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
      if (finished.has(request.reservationId)) return { booked: false, ...totalsOf(state) };
      finish(state, request.reservationId);
      state.spentMicroUsd += request.record.costMicroUsd;
      if (request.keepRecord !== false) records.push(request.record);
      return { booked: true, ...totalsOf(state) };
    },
    release: async (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
      const state = book.state(request.rung, request.windowKey);
      expireReservations(state, request.nowMs);
      if (finished.has(request.reservationId)) return { released: false, ...totalsOf(state) };
      const released = finish(state, request.reservationId);
      return { released, ...totalsOf(state) };
    },
    totals: (rung, windowKey, nowMs) => {
      const state = book.peek(rung, windowKey);
      if (!state) return { spentMicroUsd: 0, reservedMicroUsd: 0 };
      expireReservations(state, nowMs);
      return totalsOf(state);
    },
    records: async (query: SpendRecordQuery) =>
      records
        .map((record) => ({ record, timeMs: Date.parse(record.time) }))
        .filter(({ record, timeMs }) => recordMatches(record, timeMs, query))
        .sort((a, b) => a.timeMs - b.timeMs)
        .map(({ record }) => record),
    close: async () => {},
  };
}
