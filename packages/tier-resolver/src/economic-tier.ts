/** The economic tiers of a model, cheapest first (ladder.md §3). */
export const ECONOMIC_TIERS = ["free", "cheap", "premium"] as const;

/** Economic tier of a model on a metered connection: `free`, `cheap` or `premium`. */
export type EconomicTier = (typeof ECONOMIC_TIERS)[number];

/** Which rule of ladder.md §3 decided a tier. */
export type TierRule = "T1" | "T2" | "T3" | "T4";

/** A tier with the rule and reason that decided it, and the prices used (USD per 1M tokens). */
export interface TierVerdict {
  tier: EconomicTier;
  /** Human-readable why, e.g. "input $0.20/MTok ≤ $1.00/MTok cheap threshold". */
  reason: string;
  matchedBy: TierRule;
  /** Input price in USD per 1M tokens, when a catalog price was found. */
  inputPerMTok?: number;
  /** Output price in USD per 1M tokens, when a catalog price was found. */
  outputPerMTok?: number;
}

/** True for `free`, `cheap` and `premium`. */
export function isEconomicTier(value: unknown): value is EconomicTier {
  return value === "free" || value === "cheap" || value === "premium";
}
