/** The routing ids planfirst advertises in `/v1/models` (ladder.md §12). */
export const ADVERTISED_AUTO_IDS = Object.freeze(["auto/subscription", "auto/thrifty"] as const);

/** One advertised auto id. */
export type AdvertisedAutoId = (typeof ADVERTISED_AUTO_IDS)[number];

/** The ladder tiers an auto id can name. */
export type AutoTier = "subscription" | "thrifty";

/** A parsed auto id: `auto/<tier>` or `auto/<category>:<tier>`. */
export interface ParsedAutoId {
  /** Category that narrows the pool first; absent for a bare `auto/<tier>`. */
  category?: string;
  tier: AutoTier;
}

const AUTO_ID = /^auto\/(?:([a-z][a-z0-9-]*):)?(subscription|thrifty)$/;
const PAID_TIER_AUTO_ID = /^auto\/(?:[a-z][a-z0-9-]*:)?pro(?:-[a-z0-9-]+)?$/;

/**
 * Parses an auto id by the grammar of ladder.md §12, exact and case-sensitive: `auto/<tier>` or
 * `auto/<category>:<tier>`, tier ∈ {subscription, thrifty}, category `[a-z][a-z0-9-]*`.
 * Returns null for anything else (including non-strings); never throws. Whether a category
 * exists is the caller's configuration.
 */
export function parseAutoId(id: unknown): ParsedAutoId | null {
  if (typeof id !== "string") return null;
  const match = AUTO_ID.exec(id);
  if (!match) return null;
  const tier = match[2] as AutoTier;
  return match[1] === undefined ? { tier } : { category: match[1], tier };
}

/**
 * True only for ids of a paid tier (`auto/pro`, `auto/pro-<name>`, `auto/<category>:pro…`),
 * which a "hide paid models" setting hides. False for `auto/subscription`, `auto/thrifty` and
 * every composite of them (ladder.md §12).
 */
export function isPaidTierAutoId(id: unknown): boolean {
  return typeof id === "string" && PAID_TIER_AUTO_ID.test(id);
}
