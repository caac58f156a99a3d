import { type BudgetScope, type ScopeHold, scopeHoldId } from "./budget-scope";
import { BUDGET_WINDOWS, type BudgetWindow, createWindowKeyer } from "./budget-window";
import { invalidArgument, requireNonEmptyString, requireNonNegativeInteger } from "./errors";
import { type MicroRounding, type MicroUsd, microToUsd, usdToMicro } from "./money";
import { newReservationId } from "./reservation-id";
import { recordTime, type SpendRecord, type SpendRecordQuery } from "./spend-record";
import type {
  SpendStore,
  StoreReleaseResult,
  StoreSettleResult,
  WindowTotals,
} from "./spend-store";

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

/** What {@link SpendLedger.reserve} is asked for. */
export interface ReserveRequest {
  rung: string;
  connectionId: string;
  model: string;
  /** Worst-case cost of the request in USD, rounded up to the micro-dollar. */
  maxCostUsd: number;
  /** The gateway's id of the request, kept on the record. */
  requestId: string;
  /**
   * Budgets the request must fit besides its rung's (a client key's), reserved one after the
   * other in this order and before the rung; absent or empty = the rung's budget alone.
   */
  scopes?: readonly BudgetScope[];
}

/** A held amount of budget; pass it to `settle` or `release`. Plain data, safe to serialise. */
export interface Reservation {
  /** Unique id; settle and release are idempotent per id. */
  id: string;
  rung: string;
  /** Window the request is booked in: the one current when it was reserved. */
  windowKey: string;
  connectionId: string;
  model: string;
  requestId: string;
  amountMicroUsd: MicroUsd;
  /** Epoch ms of the reservation. */
  reservedAtMs: number;
  /** Epoch ms after which the reservation no longer holds budget. */
  expiresAtMs: number;
  /**
   * The same amount held against each scope of the request, in the request's order; absent
   * when it named none. Settled and released with the reservation.
   */
  scopes?: ScopeHold[];
}

/** Why a reservation was refused. */
export type RefusalReason =
  /** Rule B2: the rung's budget is ≤ 0. */
  | "budget_disabled"
  /** spent + reserved + maxCost would exceed the budget. */
  | "budget_exhausted";

/**
 * A refused reservation, with the refusing window's state at the time of the refusal (USD).
 * Nothing is held after a refusal: scopes admitted before it are given back first.
 */
export interface ReservationRefusal {
  refused: true;
  reason: RefusalReason;
  spentUsd: number;
  reservedUsd: number;
  budgetUsd: number;
  /** The budget scope that refused; absent when the rung's own budget refused. */
  scope?: string;
}

/** What {@link SpendLedger.settle} records besides the cost. */
export interface SettleRecordInput {
  /** Defaults to the reservation's connection. */
  connectionId?: string;
  model: string;
  /** All prompt tokens, cached reads and cache writes included. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /** Id of the client key (never the key); default null. */
  clientKeyId?: string | null;
}

/** Outcome of {@link SpendLedger.settle}. */
export interface SettleResult {
  /** False when the reservation was already settled or released: nothing was booked again. */
  booked: boolean;
  /** The record written; null when nothing was booked. */
  record: SpendRecord | null;
  /** How far the actual cost exceeded the reservation, in micro-USD (0 when within it). */
  overReservationMicroUsd: MicroUsd;
  /**
   * Present and true when the store was unreachable and the settle went to the store's local
   * journal instead; it is booked when the store is back (once: replay is idempotent).
   */
  journaled?: true;
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
  /** Resolves when the store is ready. */
  ready(): Promise<void>;
  /**
   * Resolves when every reserve, settle and release accepted so far is durable in the store.
   * Call it before exiting when settles were not awaited.
   */
  flush(): Promise<void>;
}

/** True when `reserve()` refused: narrows its result to {@link ReservationRefusal}. */
export function isRefusal(result: Reservation | ReservationRefusal): result is ReservationRefusal {
  return "refused" in result && result.refused === true;
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

  /** Gives back holds taken before a refusal; one that cannot be given back expires. */
  const giveBack = (holds: readonly ScopeHold[], nowMs: number): Promise<unknown> =>
    Promise.all(holds.map((hold) => releaseHold(store, hold, nowMs).catch(() => undefined)));

  /**
   * Books a settled request's cost against its scopes too, in the same turn as the rung's settle
   * (one batch where the store batches). Only the rung's settle keeps the record, so a request
   * is one record however many budgets it counted against. Journaled when any part was.
   */
  const settleScopes = async (
    rungSettle: Promise<StoreSettleResult>,
    holds: readonly ScopeHold[],
    nowMs: number,
    record: SpendRecord,
  ): Promise<StoreSettleResult> => {
    const [result, ...scoped] = await Promise.all([
      rungSettle,
      ...holds.map((hold) =>
        store.settle({
          reservationId: hold.id,
          rung: hold.scope,
          windowKey: hold.windowKey,
          nowMs,
          record,
          keepRecord: false,
        }),
      ),
    ]);
    if (scoped.some((part) => part.journaled)) return { ...result, journaled: true };
    return result;
  };

  /**
   * The reservation of a request that names budget scopes: each scope in the request's order,
   * then the rung, each admitted atomically in its own window. A refusal (or a store failure)
   * gives back what was held before it, so nothing is held after a refused request; two
   * requests racing for the same budgets may both be refused where one would have fitted, never
   * both admitted past one. Scopes come first, so a key over its own budget never holds any of
   * the rung's, which other keys share.
   */
  const reserveInScopes = async (
    reservation: Reservation,
    scopes: readonly BudgetScope[],
    rungBudgetMicro: MicroUsd | undefined,
  ): Promise<Reservation | ReservationRefusal> => {
    const { rung, reservedAtMs } = reservation;
    const steps = scopes.map((scope, index) => {
      const name = requireNonEmptyString(`request.scopes[${index}].scope`, scope?.scope);
      if (name === rung) {
        invalidArgument(`request.scopes[${index}].scope`, "a name other than the rung's", name);
      }
      const usd = scope.budgetUsd;
      if (typeof usd !== "number" || Number.isNaN(usd)) {
        invalidArgument(`request.scopes[${index}].budgetUsd`, "a number of USD", usd);
      }
      const budgetMicro =
        usd <= 0 ? 0 : usdAmount(`request.scopes[${index}].budgetUsd`, usd, "down");
      const hold: ScopeHold = {
        scope: name,
        windowKey: keyerOf(scope.window)(reservedAtMs),
        id: scopeHoldId(reservation.id, index),
      };
      return { hold, budgetMicro };
    });
    for (const { hold, budgetMicro } of steps) {
      if (budgetMicro === 0) {
        const state = store.totals(hold.scope, hold.windowKey, reservedAtMs);
        return budgetRefusal("budget_disabled", 0, state, hold.scope);
      }
    }
    if (rungBudgetMicro === 0) {
      return budgetRefusal(
        "budget_disabled",
        rungBudgetMicro,
        store.totals(rung, reservation.windowKey, reservedAtMs),
      );
    }
    const held: ScopeHold[] = [];
    try {
      for (const { hold, budgetMicro } of steps) {
        const result = await store.reserve({
          reservationId: hold.id,
          rung: hold.scope,
          windowKey: hold.windowKey,
          amountMicroUsd: reservation.amountMicroUsd,
          budgetMicroUsd: budgetMicro,
          nowMs: reservedAtMs,
          expiresAtMs: reservation.expiresAtMs,
        });
        if (!result.admitted) {
          await giveBack(held, reservedAtMs);
          return budgetRefusal("budget_exhausted", budgetMicro, result, hold.scope);
        }
        held.push(hold);
      }
      const result = await store.reserve({
        reservationId: reservation.id,
        rung,
        windowKey: reservation.windowKey,
        amountMicroUsd: reservation.amountMicroUsd,
        budgetMicroUsd: rungBudgetMicro ?? null,
        nowMs: reservedAtMs,
        expiresAtMs: reservation.expiresAtMs,
      });
      if (!result.admitted) {
        await giveBack(held, reservedAtMs);
        return budgetRefusal("budget_exhausted", rungBudgetMicro ?? 0, result);
      }
    } catch (error) {
      await giveBack(held, reservedAtMs);
      throw error;
    }
    reservation.scopes = held;
    return reservation;
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
        return reserveInScopes(reservation, scopes, budgetMicro);
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
      const record: SpendRecord = {
        time: recordTime(nowMs),
        windowKey: reservation.windowKey,
        rung: reservation.rung,
        connectionId: input.connectionId ?? reservation.connectionId,
        model: requireNonEmptyString("record.model", input.model),
        inputTokens: requireNonNegativeInteger("record.inputTokens", input.inputTokens),
        outputTokens: requireNonNegativeInteger("record.outputTokens", input.outputTokens),
        cachedInputTokens: requireNonNegativeInteger(
          "record.cachedInputTokens",
          input.cachedInputTokens ?? 0,
        ),
        cacheWriteTokens: requireNonNegativeInteger(
          "record.cacheWriteTokens",
          input.cacheWriteTokens ?? 0,
        ),
        costMicroUsd,
        costUsd: microToUsd(costMicroUsd),
        reservedMicroUsd: reservation.amountMicroUsd,
        clientKeyId: input.clientKeyId ?? null,
        requestId: reservation.requestId,
        reservationId: reservation.id,
      };
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
          : await settleScopes(rungSettle, holds, nowMs, record);
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
    ready: () => store.ready(),
    flush: () => store.flush?.() ?? Promise.resolve(),
  };
}

/** USD → micro-USD, with errors that name the caller's argument. An infinite budget is no cap. */
function usdAmount(path: string, usd: number, rounding: MicroRounding): MicroUsd {
  if (usd === Number.POSITIVE_INFINITY && rounding === "down") return Number.MAX_SAFE_INTEGER;
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0 || usd > 9e9) {
    invalidArgument(path, "a finite, non-negative number of USD below 9e9", usd);
  }
  return usdToMicro(usd, rounding);
}

/**
 * The refusal of a budget of `budgetMicro` whose window is at `state` (zeros when the store
 * cannot answer); `scope` names the refusing budget scope, absent when the rung refused.
 */
function budgetRefusal(
  reason: RefusalReason,
  budgetMicro: MicroUsd,
  state: WindowTotals | null,
  scope?: string,
): ReservationRefusal {
  const refusal: ReservationRefusal = {
    refused: true,
    reason,
    spentUsd: microToUsd(state?.spentMicroUsd ?? 0),
    reservedUsd: microToUsd(state?.reservedMicroUsd ?? 0),
    budgetUsd: microToUsd(budgetMicro),
  };
  if (scope !== undefined) refusal.scope = scope;
  return refusal;
}

/** Gives one scope's hold back in the store. */
function releaseHold(
  store: SpendStore,
  hold: ScopeHold,
  nowMs: number,
): Promise<StoreReleaseResult> {
  return store.release({
    reservationId: hold.id,
    rung: hold.scope,
    windowKey: hold.windowKey,
    nowMs,
  });
}
