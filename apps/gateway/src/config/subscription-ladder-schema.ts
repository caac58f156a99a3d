import { z } from "zod";

/** Rung names a budget may be set on; the quota rungs are refused later with rule B5. */
const rungNameSchema = z.enum(["subscription", "keyless", "free", "cheap", "premium"]);

/** Budget window lengths (UTC by default, see `subscriptionLadder.budgetTimeZone`). */
export const budgetWindowSchema = z.enum(["day", "week", "month"]);

/**
 * Session affinity (ladder.md §16): inside the rung the ladder chose, a conversation's next turn
 * goes first to the target that served its last one, where its prompt cache is.
 */
const sessionAffinitySchema = z.strictObject({
  /**
   * A session with no request for this long is forgotten, milliseconds. Default 3 600 000
   * (1 h); 0 turns affinity off (no session is read, written or shown).
   */
  idleTtlMs: z.number().int().min(0).default(3_600_000),
  /** Most sessions remembered; past it the least recently served are dropped. Default 10 000. */
  maxEntries: z.number().int().positive().default(10_000),
});

/** True for a time zone name this runtime knows (`Intl` refuses the others). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Ladder tuning (ladder.md §11). There is deliberately no `enabled` flag. */
export const subscriptionLadderSchema = z.strictObject({
  exitCutoffPercent: z.number().min(0).max(100).default(2),
  reentryMinRemainingPercent: z.number().min(0).max(100).default(5),
  maxStateAgeMs: z.number().int().positive().default(180_000),
  /** USD per budget window per paid rung; 0 disables a rung; absent = unbudgeted. */
  rungBudgetUsd: z.partialRecord(rungNameSchema, z.number()).default({}),
  budgetWindow: budgetWindowSchema.default("day"),
  /** IANA time zone the budget window follows (default UTC). */
  budgetTimeZone: z
    .string()
    .min(1)
    .refine(isTimeZone, "must be an IANA time zone such as UTC or Europe/Paris")
    .default("UTC"),
  sessionAffinity: sessionAffinitySchema.prefault({}),
  /**
   * How long an `auto/subscription` request waits for a plan that resets soon, milliseconds,
   * when it does not say (`x-planfirst-max-wait`). Default 0: an empty pool is refused at once.
   */
  maxWaitMs: z.number().int().min(0).default(0),
  /**
   * How long an `auto/thrifty` request waits for a plan that resets soon before it climbs to a
   * paid rung, milliseconds, when it does not say. Default 0: it climbs at once.
   */
  maxWaitBeforePaidMs: z.number().int().min(0).default(0),
  /** The longest wait any request may ask for or be given, milliseconds. Default 600 000. */
  maxWaitCapMs: z.number().int().min(0).default(600_000),
  /**
   * Requests that may wait for one plan connection at once; the next is answered at once, as
   * if it had not asked to wait. Default 256.
   */
  maxWaiting: z.number().int().min(0).default(256),
  /**
   * A streaming request that has waited this long gets its response headers and keep-alive
   * frames until its answer starts, milliseconds. Default 10 000.
   */
  heldStreamHeadersAfterMs: z.number().int().min(0).default(10_000),
  /** Time between two keep-alive frames of a held stream, milliseconds. Default 5 000. */
  heldStreamKeepAliveMs: z.number().int().positive().default(5_000),
});

/** Ladder tuning section. */
export type SubscriptionLadderConfig = z.infer<typeof subscriptionLadderSchema>;
