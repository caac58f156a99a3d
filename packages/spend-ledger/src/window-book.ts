import { windowEndBoundMs } from "./budget-window";
import type { MicroUsd } from "./money";
import type { WindowTotals } from "./spend-store";

/** A reservation held against a window's budget until it is settled, released or expires. */
export interface LiveReservation {
  amountMicroUsd: MicroUsd;
  expiresAtMs: number;
}

/** What a store holds in memory for one (rung, budget window): the books admission reads. */
export interface WindowState {
  spentMicroUsd: MicroUsd;
  reservedMicroUsd: MicroUsd;
  live: Map<string, LiveReservation>;
  /** Earliest `expiresAtMs` among `live`, so expiry scans only when something can expire. */
  nextExpiryMs: number;
}

/**
 * The in-memory books of every (rung, budget window) a store has seen, and the one admission
 * rule every store applies to them (B6: admitted only while spent + reserved + amount ≤ budget).
 * The memory store keeps only this; the SQLite store keeps it in front of its durable batches.
 */
interface WindowBook {
  /** The window's state, created empty on first use. */
  state(rung: string, windowKey: string): WindowState;
  /** The window's state, or undefined when the book has never seen it. */
  peek(rung: string, windowKey: string): WindowState | undefined;
  /**
   * Forgets every window that ended before `cutoffMs` (see {@link windowEndBoundMs}) and holds
   * no reservation live at `cutoffMs`, after dropping those expired before it (`onExpired` is
   * told of each); returns how many it forgot. A prune takes the same windows out of a store's
   * history, so the books in memory stay what the store would load again, and a gateway that
   * runs for months keeps only windows it can still use. An operation on a forgotten window
   * starts it afresh.
   */
  forgetEnded(cutoffMs: number, onExpired?: (reservation: LiveReservation) => void): number;
}

/** Creates an empty {@link WindowBook}. */
export function createWindowBook(): WindowBook {
  // Keyed by rung, then window key, rather than by one joined string: both are strings the
  // caller reuses (config, the ledger's window keyer), whose hashes are kept, so a lookup
  // builds nothing.
  const windows = new Map<string, Map<string, WindowState>>();
  return {
    state(rung, windowKey) {
      let ofRung = windows.get(rung);
      if (!ofRung) {
        ofRung = new Map();
        windows.set(rung, ofRung);
      }
      let state = ofRung.get(windowKey);
      if (!state) {
        state = {
          spentMicroUsd: 0,
          reservedMicroUsd: 0,
          live: new Map(),
          nextExpiryMs: Number.POSITIVE_INFINITY,
        };
        ofRung.set(windowKey, state);
      }
      return state;
    },
    peek(rung, windowKey) {
      return windows.get(rung)?.get(windowKey);
    },
    forgetEnded(cutoffMs, onExpired) {
      let forgotten = 0;
      for (const [rung, ofRung] of windows) {
        for (const [windowKey, state] of ofRung) {
          if (windowEndBoundMs(windowKey) > cutoffMs) continue;
          expireReservations(state, cutoffMs - 1, onExpired);
          if (state.live.size > 0) continue;
          ofRung.delete(windowKey);
          forgotten += 1;
        }
        if (ofRung.size === 0) windows.delete(rung);
      }
      return forgotten;
    },
  };
}

/**
 * Drops every reservation of `state` that has expired by `nowMs`, calling `onExpired` for each
 * (the SQLite store marks them on disk later). Scans only when something can have expired.
 */
export function expireReservations(
  state: WindowState,
  nowMs: number,
  onExpired?: (reservation: LiveReservation) => void,
): void {
  if (state.nextExpiryMs > nowMs) return;
  let next = Number.POSITIVE_INFINITY;
  for (const [id, reservation] of state.live) {
    if (reservation.expiresAtMs <= nowMs) {
      state.live.delete(id);
      state.reservedMicroUsd -= reservation.amountMicroUsd;
      onExpired?.(reservation);
    } else if (reservation.expiresAtMs < next) {
      next = reservation.expiresAtMs;
    }
  }
  state.nextExpiryMs = next;
}

/** B6: true when `amountMicroUsd` more fits under `budgetMicroUsd` (null = no budget, B1). */
export function fitsBudget(
  state: WindowState,
  amountMicroUsd: MicroUsd,
  budgetMicroUsd: MicroUsd | null,
): boolean {
  return (
    budgetMicroUsd === null ||
    state.spentMicroUsd + state.reservedMicroUsd + amountMicroUsd <= budgetMicroUsd
  );
}

/** Holds a reservation against the window. */
export function holdReservation(state: WindowState, id: string, held: LiveReservation): void {
  state.live.set(id, held);
  state.reservedMicroUsd += held.amountMicroUsd;
  state.nextExpiryMs = Math.min(state.nextExpiryMs, held.expiresAtMs);
}

/** Takes a live reservation off the window; returns it, or undefined when it was not live. */
export function takeReservation(state: WindowState, id: string): LiveReservation | undefined {
  const held = state.live.get(id);
  if (!held) return undefined;
  state.live.delete(id);
  state.reservedMicroUsd -= held.amountMicroUsd;
  return held;
}

/** The window's spent and reserved amounts. */
export function totalsOf(state: WindowState): WindowTotals {
  return { spentMicroUsd: state.spentMicroUsd, reservedMicroUsd: state.reservedMicroUsd };
}
