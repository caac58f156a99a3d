import type { BudgetWindow } from "./budget-window";

/**
 * A budget a reservation must fit besides its rung's, such as one client key's spend over every
 * paid rung. Its spend and reservations are kept in the store under `scope`, apart from every
 * rung's, so rung totals never count a request twice.
 */
export interface BudgetScope {
  /** Name of the scope in the store; must differ from every rung name (e.g. `key:alice`). */
  scope: string;
  /** Budget in USD per window, rounded down to the micro-dollar; ≤ 0 refuses every reservation. */
  budgetUsd: number;
  /** Window of this budget; default the ledger's `window`. */
  window?: BudgetWindow;
}

/** The share of a reservation held against one {@link BudgetScope}. Plain data. */
export interface ScopeHold {
  scope: string;
  /** Window of the scope the request is booked in: the one current when it was reserved. */
  windowKey: string;
  /** Id of this hold in the store: the reservation's id and the scope's position. */
  id: string;
}

/**
 * Id of the hold of the scope at `index` of a reservation: distinct from the reservation's own
 * id and from every other reservation's, and free of line breaks like the id it extends.
 */
export function scopeHoldId(reservationId: string, index: number): string {
  return `${reservationId}:s${index}`;
}
