/**
 * The rungs of the ladder in escalation order: plan capacity first, paid rungs last
 * (ladder.md §4).
 */
export const RUNG_ORDER = ["subscription", "keyless", "free", "cheap", "premium"] as const;

/** One rung of the ladder. */
export type LadderRung = (typeof RUNG_ORDER)[number];

/** Rungs 0–2, gated per connection by quota readings; budgets on them are rejected (B5). */
export const QUOTA_RUNGS = ["subscription", "keyless", "free"] as const;

/** Rungs 3–4, gated per rung by budget (ladder.md §7). */
export const PAID_RUNGS = ["cheap", "premium"] as const;

/** A rung gated by quota. */
export type QuotaRung = (typeof QUOTA_RUNGS)[number];

/** A rung gated by budget. */
export type PaidRung = (typeof PAID_RUNGS)[number];

/** Position of `rung` in `RUNG_ORDER`, 0 (subscription) to 4 (premium). */
export function rungIndex(rung: LadderRung): number {
  return RUNG_ORDER.indexOf(rung);
}

/** True for the budget-gated rungs `cheap` and `premium`. */
export function isPaidRung(rung: string): rung is PaidRung {
  return rung === "cheap" || rung === "premium";
}
