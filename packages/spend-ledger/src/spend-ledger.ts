import type { BudgetScope } from "./budget-scope";
import { BUDGET_WINDOWS, type BudgetWindow, createWindowKeyer } from "./budget-window";
import { invalidArgument, requireNonEmptyString } from "./errors";
import { type MicroUsd, microToUsd, usdAmount } from "./money";
import {
  budgetRefusal,
  type Reservation,
  type ReservationRefusal,
  type ReserveRequest,
} from "./reservation";
import { newReservationId } from "./reservation-id";
import { releaseHold, reserveInScopes, settleScopes } from "./scope-reservation";
import { type SettleRecordInput, type SettleResult, settledRecord } from "./settlement";
import {
  type SpendRecord,
  type SpendRecordQuery,
  type SpendSummary,
  summarize,
} from "./spend-record";
import type { SpendStore, WindowTotals } from "./spend-store";

/** Options of {@link createSpendLedger}. */
export interface SpendLedgerOptions {
  /** Where spend and reservations live; shared stores make ledgers share budgets. */
  store: SpendStore;
  /**
   * Budget in USD per rung name and window (`{ cheap: 5, premium: 0 }`). A rung without an entry
   * has no budget (rule B1); a budget ≤ 0 disables the rung (rule B2). Budgets are rounded down
   * to the micro-dollar.
   */
  budgetsUsd?: Record<string, number | undefined>;
  /** Budget window length; default `"day"`. */
  window?: BudgetWindow;
  /** IANA time zone whose local dates delimit windows; default `"UTC"`. */
  timeZone?: string;
  /** Clock in epoch milliseconds; default `Date.now`. */
  now?: () => number;
  /** A reservation neither settled nor released is dropped after this long; default 600 000 ms. */
  reservationTimeoutMs?: number;
}

/** A per-rung budget gate that reserves before a request is dispatched and settles after. */
export interface SpendLedger {
  /**
   * Holds `maxCostUsd` of the rung's budget in the current window. Admits only when
   * spent + reserved + maxCost ≤ budget, atomically against every other reservation on the
   * same store (other ledger instances and replicas included). Stale reservations are expired
   * first. No budget → always admitted and still tracked (B1); budget ≤ 0 → refused (B2).
   */
  reserve(request: ReserveRequest): Promise<Reservation | ReservationRefusal>;
  /**
   * Releases the reservation and books `actualCostUsd` (rounded up to the micro-dollar) in the
   * reservation's window, with a record. An actual cost above the reservation is booked in full:
   * it was spent, and it is the one way spend can pass a budget. A settle after the reservation
   * expired still books. Idempotent per reservation id.
   *
   * The promise resolves once the booking is durable (SQLite: its batch is committed; Redis: the
   * script ran, or the store was unreachable and the settle is in the local journal, `journaled`).
   * The client's response need not wait for it: a caller may leave it unawaited as long as it
   * handles a rejection, and calls {@link SpendLedger.flush} (or the store's `close()`) before it
   * exits. A crash before the settle is durable leaves the reservation held until it expires:
   * the books over-count for a while, never under-count.
   */
  settle(
    reservation: Reservation,
    actualCostUsd: number,
    record: SettleRecordInput,
  ): Promise<SettleResult>;
  /** Gives the reservation back without booking anything (the request failed). Idempotent. */
  release(reservation: Reservation): Promise<{ released: boolean }>;
  /** Settled spend of a rung in USD, in `windowKey` (default: the current window). Synchronous. */
  spentUsd(rung: string, windowKey?: string): number;
  /** Live reservations of a rung in USD, in `windowKey` (default: current). Synchronous. */
  reservedUsd(rung: string, windowKey?: string): number;
  /** The rung's budget in USD per window; undefined when it has none. */
  budgetUsd(rung: string): number | undefined;
  /**
   * Spent + reserved of the rung in the current window, in USD, for the ladder's
   * `resolveRungSpendUsd`; null when the store cannot answer yet (rule B3: not gated; the
   * reservation still enforces the budget).
   */
  rungSpendUsd(rung: string): number | null;
  /**
   * Rule B4: true when the rung has a budget and spent + reserved ≥ budget in the current window
   * (always true for a budget ≤ 0, never for a rung without one).
   */
  isExhausted(rung: string): boolean;
  /**
   * Rule B4 for a budget scope: true when its budget is ≤ 0, or when spent + reserved ≥ budget in
   * its current window; false while the store cannot answer (its reservation still enforces it).
   */
  isScopeExhausted(scope: BudgetScope): boolean;
  /**
   * Key of the current window, e.g. `day:2026-11-30`; of the ledger's window, or of `window`
   * (a budget scope's) in the ledger's time zone.
   */
  currentWindowKey(window?: BudgetWindow): string;
  /** Settled records, in time order. */
  records(query?: SpendRecordQuery): Promise<SpendRecord[]>;
  /**
   * The sums of the settled records `records(query)` would list, overall and per rung,
   * connection and model: summed by the store where it can (SQLite and Redis from per-minute
   * sums kept beside the records, so a status read over a long or busy window does not load
   * every record into memory).
   */
  summary(query?: SpendRecordQuery): Promise<SpendSummary>;
  /** Resolves when the store is ready. */
  ready(): Promise<void>;
  /**
   * Resolves when every reserve, settle and release accepted so far is durable in the store.
   * Call it before exiting when settles were not awaited.
   */
  flush(): Promise<void>;
}

/** Default of `reservationTimeoutMs`: ten minutes. */
export const DEFAULT_RESERVATION_TIMEOUT_MS = 600_000;

/**
 * Creates a spend ledger over a store. The ledger holds no spend itself (only configuration and
 * a clock), so any number of ledgers over one shared store enforce one budget exactly.
 *
 * @throws SpendLedgerError `invalid_argument` for an unknown window or time zone, a non-numeric
 *   budget or a non-positive timeout
 */
export function createSpendLedger(options: SpendLedgerOptions): SpendLedger {
  const {
    store,
    budgetsUsd = {},
    window = "day",
    timeZone = "UTC",
    now = Date.now,
    reservationTimeoutMs = DEFAULT_RESERVATION_TIMEOUT_MS,
  } = options;
  if (!store || typeof store.reserve !== "function") {
    invalidArgument("store", "a SpendStore", store);
  }
  if (!BUDGET_WINDOWS.includes(window)) {
    invalidArgument("window", BUDGET_WINDOWS.map((w) => `"${w}"`).join(" | "), window);
  }
  if (!Number.isSafeInteger(reservationTimeoutMs) || reservationTimeoutMs <= 0) {
    invalidArgument(
      "reservationTimeoutMs",
      "a positive integer of milliseconds",
      reservationTimeoutMs,
    );
  }
  const budgetsMicro = new Map<string, MicroUsd>();
  for (const [rung, usd] of Object.entries(budgetsUsd)) {
    if (usd === undefined) continue;
    if (typeof usd !== "number" || Number.isNaN(usd)) {
      invalidArgument(`budgetsUsd.${rung}`, "a number of USD (≤ 0 disables the rung)", usd);
    }
    budgetsMicro.set(rung, usd <= 0 ? 0 : usdAmount(`budgetsUsd.${rung}`, usd, "down"));
  }
  const keyAt = createWindowKeyer(window, timeZone);
  const keyers = new Map<BudgetWindow, (atMs: number) => string>([[window, keyAt]]);
  /** The keyer of a scope's window (the ledger's when it names none), made once per window. */
  const keyerOf = (scopeWindow: BudgetWindow | undefined): ((atMs: number) => string) => {
    if (scopeWindow === undefined) return keyAt;
    let keyer = keyers.get(scopeWindow);
    if (keyer === undefined) {
      keyer = createWindowKeyer(scopeWindow, timeZone);
      keyers.set(scopeWindow, keyer);
    }
    return keyer;
  };

  const totals = (rung: string, windowKey?: string): WindowTotals | null => {
    const nowMs = now();
    return store.totals(rung, windowKey ?? keyAt(nowMs), nowMs);
  };

  const budgetUsd = (rung: string): number | undefined => {
    const micro = budgetsMicro.get(rung);
    return micro === undefined ? undefined : microToUsd(micro);
  };

  return {
    async reserve(request) {
      const rung = requireNonEmptyString("request.rung", request.rung);
      const connectionId = requireNonEmptyString("request.connectionId", request.connectionId);
      const model = requireNonEmptyString("request.model", request.model);
      const requestId = requireNonEmptyString("request.requestId", request.requestId);
      const amountMicroUsd = usdAmount("request.maxCostUsd", request.maxCostUsd, "up");
      const reservedAtMs = now();
      const windowKey = keyAt(reservedAtMs);
      const budgetMicro = budgetsMicro.get(rung);
      const scopes = request.scopes;
      if (budgetMicro === 0 && (scopes === undefined || scopes.length === 0)) {
        return budgetRefusal(
          "budget_disabled",
          budgetMicro,
          store.totals(rung, windowKey, reservedAtMs),
        );
      }
      const reservation: Reservation = {
        id: newReservationId(reservedAtMs),
        rung,
        windowKey,
        connectionId,
        model,
        requestId,
        amountMicroUsd,
        reservedAtMs,
        expiresAtMs: reservedAtMs + reservationTimeoutMs,
      };
      if (scopes !== undefined && scopes.length > 0) {
        return reserveInScopes(store, reservation, scopes, budgetMicro, keyerOf);
      }
      const result = await store.reserve({
        reservationId: reservation.id,
        rung,
        windowKey,
        amountMicroUsd,
        budgetMicroUsd: budgetMicro ?? null,
        nowMs: reservedAtMs,
        expiresAtMs: reservation.expiresAtMs,
      });
      return result.admitted
        ? reservation
        : budgetRefusal("budget_exhausted", budgetMicro ?? 0, result);
    },

    async settle(reservation, actualCostUsd, input) {
      requireNonEmptyString("reservation.id", reservation?.id);
      const costMicroUsd = usdAmount("actualCostUsd", actualCostUsd, "up");
      const nowMs = now();
      const record = settledRecord(reservation, costMicroUsd, nowMs, input);
      const rungSettle = store.settle({
        reservationId: reservation.id,
        rung: reservation.rung,
        windowKey: reservation.windowKey,
        nowMs,
        record,
      });
      const holds = reservation.scopes;
      const result =
        holds === undefined || holds.length === 0
          ? await rungSettle
          : await settleScopes(store, rungSettle, holds, nowMs, record);
      const settled: SettleResult = {
        booked: result.booked,
        record: result.booked ? record : null,
        overReservationMicroUsd: result.booked
          ? Math.max(0, costMicroUsd - reservation.amountMicroUsd)
          : 0,
      };
      if (result.journaled) settled.journaled = true;
      return settled;
    },

    async release(reservation) {
      requireNonEmptyString("reservation.id", reservation?.id);
      const nowMs = now();
      const rungRelease = store.release({
        reservationId: reservation.id,
        rung: reservation.rung,
        windowKey: reservation.windowKey,
        nowMs,
      });
      const holds = reservation.scopes;
      if (holds === undefined || holds.length === 0) {
        return { released: (await rungRelease).released };
      }
      const [result] = await Promise.all([
        rungRelease,
        ...holds.map((hold) => releaseHold(store, hold, nowMs)),
      ]);
      return { released: result.released };
    },

    spentUsd: (rung, windowKey) => microToUsd(totals(rung, windowKey)?.spentMicroUsd ?? 0),
    reservedUsd: (rung, windowKey) => microToUsd(totals(rung, windowKey)?.reservedMicroUsd ?? 0),
    budgetUsd,
    rungSpendUsd(rung) {
      const state = totals(rung);
      return state ? microToUsd(state.spentMicroUsd + state.reservedMicroUsd) : null;
    },
    isExhausted(rung) {
      const budgetMicro = budgetsMicro.get(rung);
      if (budgetMicro === undefined) return false;
      if (budgetMicro === 0) return true;
      const state = totals(rung);
      return state !== null && state.spentMicroUsd + state.reservedMicroUsd >= budgetMicro;
    },
    isScopeExhausted(scope) {
      const usd = scope.budgetUsd;
      if (!(usd > 0)) return true;
      const budgetMicro = usdAmount("scope.budgetUsd", usd, "down");
      const nowMs = now();
      const state = store.totals(scope.scope, keyerOf(scope.window)(nowMs), nowMs);
      return state !== null && state.spentMicroUsd + state.reservedMicroUsd >= budgetMicro;
    },
    currentWindowKey: (scopeWindow) => keyerOf(scopeWindow)(now()),
    records: (query = {}) => store.records(query),
    summary: async (query = {}) =>
      store.summary ? store.summary(query) : summarize(await store.records(query)),
    ready: () => store.ready(),
    flush: () => store.flush?.() ?? Promise.resolve(),
  };
}
