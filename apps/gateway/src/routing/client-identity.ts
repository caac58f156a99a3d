import type { ClientKeyBudget, ClientKeyLimits, ClientRole } from "../config/client-key-policy";

export type { ClientKeyLimits };

/** The identity of one authenticated client key: what routing may use on its behalf. */
export interface ClientIdentity {
  /** Key id (configured id or env variable name); `anonymous` when no keys are configured. */
  id: string;
  /** Connection ids the key may use; null = all. */
  connections: ReadonlySet<string> | null;
  /** Absent = `client`: an identity sees only its own unless it is said to be an admin. */
  role?: ClientRole;
  /** Absent or null: no key budget (the rungs' budgets still apply). */
  budget?: ClientKeyBudget | null;
  /** Absent or null: no limit, and nothing is checked on the request path. */
  limits?: ClientKeyLimits | null;
}

/** True when `client` may see everything: every key's spend, `/metrics`. */
export function isAdmin(client: ClientIdentity): boolean {
  return client.role === "admin";
}
