import type { Cooldown } from "@planfirst/quota-cache";

/** One cooldown in force, as `/v1/status` lists it. */
export interface StatusCooldown {
  /** The failure that set it: `rate_limited`, `window_exhausted`, `overloaded`, `timeout`, … */
  kind: string;
  /** Model it is scoped to; null = the whole connection. */
  model: string | null;
  since: string;
  until: string;
  /** The upstream's own reset instant, when it gave one. */
  resetAt: string | null;
  /**
   * The problem in words when the upstream named it ("Copilot refused the request: missing
   * Editor-Version header"); null otherwise. Never carries a credential.
   */
  reason: string | null;
}

/** A cooldown book entry in the status's shape (its fields copied, nothing else). */
export function statusCooldownOf(cooldown: Cooldown): StatusCooldown {
  return {
    kind: cooldown.kind,
    model: cooldown.model,
    since: cooldown.since,
    until: cooldown.until,
    resetAt: cooldown.resetAt,
    reason: cooldown.reason,
  };
}
