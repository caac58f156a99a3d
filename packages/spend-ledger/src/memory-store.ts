import type { MicroUsd } from "./money";
import { recordMatches, type SpendRecord, type SpendRecordQuery } from "./spend-record";
import type {
  SpendStore,
  StoreReleaseRequest,
  StoreReleaseResult,
  StoreReserveRequest,
  StoreReserveResult,
  StoreSettleRequest,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";

interface LiveReservation {
  amountMicroUsd: MicroUsd;
  expiresAtMs: number;
}

interface WindowState {
  spentMicroUsd: MicroUsd;
  reservedMicroUsd: MicroUsd;
  live: Map<string, LiveReservation>;
  /** Earliest `expiresAtMs` among `live`, so expiry scans only when something can expire. */
  nextExpiryMs: number;
}

/**
 * A spend store held in process memory: for tests, single-process gateways and benchmarks. It
 * forgets everything when the process ends and is not shared between processes; ledgers in one
 * process may share one instance. Operations run synchronously inside the returned promises, so
 * each is atomic in the single JavaScript thread.
 */
export function createMemorySpendStore(): SpendStore {
  const windows = new Map<string, WindowState>();
  const finished = new Set<string>();
  const records: SpendRecord[] = [];

  const windowState = (rung: string, windowKey: string): WindowState => {
    const key = `${rung}\u0000${windowKey}`;
    let state = windows.get(key);
    if (!state) {
      state = {
        spentMicroUsd: 0,
        reservedMicroUsd: 0,
        live: new Map(),
        nextExpiryMs: Number.POSITIVE_INFINITY,
      };
      windows.set(key, state);
    }
    return state;
  };

  const expire = (state: WindowState, nowMs: number): void => {
    if (state.nextExpiryMs > nowMs) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, reservation] of state.live) {
      if (reservation.expiresAtMs <= nowMs) {
        state.live.delete(id);
        state.reservedMicroUsd -= reservation.amountMicroUsd;
      } else if (reservation.expiresAtMs < next) {
        next = reservation.expiresAtMs;
      }
    }
    state.nextExpiryMs = next;
  };

  const totalsOf = (state: WindowState): WindowTotals => ({
    spentMicroUsd: state.spentMicroUsd,
    reservedMicroUsd: state.reservedMicroUsd,
  });

  /** Removes a live reservation; true when it was live. */
  const finish = (state: WindowState, reservationId: string): boolean => {
    finished.add(reservationId);
    const reservation = state.live.get(reservationId);
    if (!reservation) return false;
    state.live.delete(reservationId);
    state.reservedMicroUsd -= reservation.amountMicroUsd;
    return true;
  };

  return {
    ready: async () => {},
    reserve: async (request: StoreReserveRequest): Promise<StoreReserveResult> => {
      const state = windowState(request.rung, request.windowKey);
      expire(state, request.nowMs);
      const held = state.live.get(request.reservationId);
      if (held || finished.has(request.reservationId)) {
        return { admitted: held !== undefined, ...totalsOf(state) };
      }
      const committed = state.spentMicroUsd + state.reservedMicroUsd + request.amountMicroUsd;
      if (request.budgetMicroUsd !== null && committed > request.budgetMicroUsd) {
        return { admitted: false, ...totalsOf(state) };
      }
      state.live.set(request.reservationId, {
        amountMicroUsd: request.amountMicroUsd,
        expiresAtMs: request.expiresAtMs,
      });
      state.reservedMicroUsd += request.amountMicroUsd;
      state.nextExpiryMs = Math.min(state.nextExpiryMs, request.expiresAtMs);
      return { admitted: true, ...totalsOf(state) };
    },
    settle: async (request: StoreSettleRequest): Promise<StoreSettleResult> => {
      const state = windowState(request.rung, request.windowKey);
      expire(state, request.nowMs);
      if (finished.has(request.reservationId)) return { booked: false, ...totalsOf(state) };
      finish(state, request.reservationId);
      state.spentMicroUsd += request.record.costMicroUsd;
      records.push(request.record);
      return { booked: true, ...totalsOf(state) };
    },
    release: async (request: StoreReleaseRequest): Promise<StoreReleaseResult> => {
      const state = windowState(request.rung, request.windowKey);
      expire(state, request.nowMs);
      if (finished.has(request.reservationId)) return { released: false, ...totalsOf(state) };
      const released = finish(state, request.reservationId);
      return { released, ...totalsOf(state) };
    },
    totals: (rung, windowKey, nowMs) => {
      const state = windows.get(`${rung}\u0000${windowKey}`);
      if (!state) return { spentMicroUsd: 0, reservedMicroUsd: 0 };
      expire(state, nowMs);
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
