import type {
  ConnectionBillingClass,
  ConnectionBillingRule,
  ConnectionOverageBehavior,
  EffectiveOverageBasis,
} from "@planfirst/connection-billing";
import type { QuotaState } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import type { AdvertisedAutoId } from "./auto-id";
import type { LadderGrouping } from "./ladder-engine";
import type { QuotaRule } from "./quota-usability";
import type { LadderRung } from "./rung";
import type { RungBudgetRule } from "./rung-budget";

/** The rule an explained verdict cites. */
export type ExplainRule =
  | QuotaRule
  | RungBudgetRule
  | "SUB1"
  | "SUB2"
  | "THR1"
  | "H2"
  | "E3"
  | "P1";

/** The overage a connection was judged on (E3) and the evidence behind it. */
export interface ExplainedOverage {
  /** Effective overage: catalog or operator value refined by fresh live evidence. */
  overage: ConnectionOverageBehavior;
  /** What decided it: fresh evidence `on`, fresh `off`, or the catalog/operator value. */
  basis: EffectiveOverageBasis;
  /** The deciding observation's value, instant, source and detail; null when the catalog decided. */
  evidence: "on" | "off" | null;
  observedAt: string | null;
  source: string | null;
  detail: string | null;
  /** One sentence: what was seen and why it wins. */
  reason: string;
}

/** The quota reading of one connection as the ladder judged it. */
export interface ExplainedQuota {
  /** False when no reading was known (Q1); the other reading fields are then null. */
  present: boolean;
  status: QuotaState["status"] | null;
  /** 0..100 remaining in the binding window, null when unknown. */
  remainingPercent: number | null;
  /** ISO-8601 reset of the binding window, null when unknown. */
  resetAt: string | null;
  /** ISO-8601 instant the reading was observed, null when no reading. */
  checkedAt: string | null;
  /** True when the reading is too old (Q4) or its reset has passed (S2). */
  stale: boolean;
  /** The hysteresis latch (H1–H2) of the reading. */
  hasBeenExhausted: boolean;
  /** Percent the remaining must exceed: the exit cutoff, or the re-entry floor once latched. */
  thresholdPercent: number;
  /** Whether the reading admits the connection under this grouping's rules. */
  usable: boolean;
  /** The rule of ladder.md §5–§6 that decided the reading. */
  rule: QuotaRule;
}

/** Budget of the paid rung a connection sits on, in USD per budget window. */
export interface ExplainedBudget {
  rung: "cheap" | "premium";
  /** Budget in USD, null when none is set (B1). */
  limitUsd: number | null;
  /** Spent plus reserved USD in the window, null without spend accounting (B3). */
  spentUsd: number | null;
  exhausted: boolean;
  rule: RungBudgetRule;
}

/** One connection of one candidate: what it is, where it sits and why it is in or out. */
export interface ExplainedConnection {
  provider: string;
  model: string;
  /** Null only for a candidate with neither a bound connection nor an allowlist. */
  connectionId: string | null;
  authType: string | null;
  rung: LadderRung;
  /** Position of `rung` in `RUNG_ORDER`, 0–4. */
  rungIndex: number;
  billing: ConnectionBillingClass;
  /**
   * The overage routing used: the effective one (E3), so a connection whose responses say it
   * bills reads `meters-to-paid` here even when the catalog says `hard-stop`.
   */
  overage: ConnectionOverageBehavior;
  /** The catalog's (or operator's) overage before live evidence. */
  catalogOverage: ConnectionOverageBehavior;
  /** How the effective overage came about. */
  overageEvidence: ExplainedOverage;
  /** P1: may take one probe at a time on `auto/subscription` (hard-stop, no fresh reading). */
  probeable: boolean;
  /** Which of C1–C5 classified the connection. */
  matchedBy: ConnectionBillingRule;
  /** The catalog entry's reason for the billing class. */
  billingReason: string;
  /** The model's economic tier when it decided the rung (metered or unknown billing), else null. */
  tier: EconomicTier | null;
  quota: ExplainedQuota;
  /** The rung's budget, for connections on a paid rung; null on quota rungs. */
  budget: ExplainedBudget | null;
  verdict: "in" | "out";
  /** The rule that decided the verdict. */
  rule: ExplainRule;
  /** One human sentence, e.g. "overage unknown: excluded from auto/subscription (SUB2)". */
  reason: string;
}

/** One input candidate with every one of its connections. */
export interface ExplainedCandidate {
  /** Index of the candidate in the input pool. */
  position: number;
  provider: string;
  model: string;
  connectionId: string | null;
  /** In when at least one connection is in. */
  verdict: "in" | "out";
  reason: string;
  connections: ExplainedConnection[];
}

/** One candidate of the ladder's output, in dispatch order. */
export interface ExplainedTarget {
  /** Index of the input candidate it came from (a THR4 split yields several targets). */
  candidatePosition: number;
  provider: string;
  model: string;
  rung: LadderRung;
  connectionId: string | null;
  /** The allowlist the dispatcher must enforce; null when the candidate had none. */
  allowedConnectionIds: string[] | null;
}

/** Budget state of a paid rung at the time of the decision. */
export interface ExplainedRungBudget extends ExplainedBudget {
  reason: string;
}

/**
 * The ladder's decision over a pool, JSON-safe (plain objects, strings, numbers, booleans and
 * nulls only) and free of credentials: what `/v1/ladder` serves and `planfirst explain` prints.
 */
export interface LadderExplanation {
  autoId: AdvertisedAutoId;
  grouping: LadderGrouping;
  /** ISO-8601 instant of `options.now()` the decision was made at; null if the clock was invalid. */
  evaluatedAt: string | null;
  settings: {
    /** Effective value: always false for the `subscription` grouping (SUB1). */
    admitUnknownQuota: boolean;
    exitCutoffPercent: number;
    reentryMinRemainingPercent: number;
    maxStateAgeMs: number;
  };
  /** Budget state of the cheap and premium rungs. */
  budgets: ExplainedRungBudget[];
  /** Every input candidate in input order, with every connection. */
  candidates: ExplainedCandidate[];
  /** Exactly what `filterSubscriptionOnlyCandidates` / `orderPoolByRung` return, in order. */
  result: ExplainedTarget[];
  /**
   * Earliest future `resetAt` among the plan (subscription) connections' readings: when an
   * empty `auto/subscription` pool is worth retrying. Null when none is known.
   */
  earliestPlanResetAt: string | null;
  /**
   * P1: connections `auto/subscription` may probe (hard-stop, no fresh reading), in pool order;
   * the same set `findProbeableConnections` gives. Empty for the thrifty grouping.
   */
  probeable: { candidatePosition: number; connectionId: string | null }[];
}
