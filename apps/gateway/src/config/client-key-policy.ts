import type { BudgetScope, BudgetWindow } from "@planfirst/spend-ledger";

/** What a client key may see: `admin` everything; `client` only its own spend and connections. */
export type ClientRole = "admin" | "client";

/** A client key's budget over every paid rung: a spend-ledger scope named `key:<id>`. */
export interface ClientKeyBudget extends BudgetScope {
  /** Its window, resolved from the key's `budgetWindow` or the ladder's. */
  window: BudgetWindow;
}

/** A client key's request limits; a null field is no limit. */
export interface ClientKeyLimits {
  /** Requests in flight at once (a stream until it ends). */
  maxConcurrent: number | null;
  /** Requests started in any 60 s, per gateway process. */
  requestsPerMinute: number | null;
}

/** The spend ledger's name of a client key's budget scope, apart from every rung's. */
export function keyBudgetScope(keyId: string): string {
  return `key:${keyId}`;
}
