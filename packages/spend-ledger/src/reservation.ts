import type { BudgetScope, ScopeHold } from "./budget-scope";
import { type MicroUsd, microToUsd } from "./money";
import type { WindowTotals } from "./spend-store";

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

/** True when `reserve()` refused: narrows its result to {@link ReservationRefusal}. */
export function isRefusal(result: Reservation | ReservationRefusal): result is ReservationRefusal {
  return "refused" in result && result.refused === true;
}

/**
 * The refusal of a budget of `budgetMicro` whose window is at `state` (zeros when the store
 * cannot answer); `scope` names the refusing budget scope, absent when the rung refused.
 */
export function budgetRefusal(
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
