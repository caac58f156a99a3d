import type {
  ConnectionBillingClass,
  ConnectionBillingRule,
  ConnectionOverageBehavior,
  EffectiveOverageBasis,
} from "@planfirst/connection-billing";
import type { QuotaState } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import type { AdvertisedAutoId } from "./auto-id";
import {
  type ConnectionDetail,
  Decision,
  type LadderGrouping,
  type LadderRecorder,
  runLadder,
} from "./ladder-engine";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import {
  DEFAULT_EXIT_CUTOFF_PERCENT,
  DEFAULT_MAX_STATE_AGE_MS,
  DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
  isOutcomeUsable,
  QuotaOutcome,
  type QuotaRule,
  quotaRuleOf,
} from "./quota-usability";
import { type LadderRung, RUNG_ORDER } from "./rung";
import type { RungBudgetReading, RungBudgetRule } from "./rung-budget";

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

function formatPercent(value: number | null): string {
  return value === null ? "unknown" : `${Number(value.toFixed(2))}%`;
}

function formatUsd(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(2)}`;
}

/**
 * The sentence an explanation gives for a paid rung's budget state (rules B1–B4), e.g.
 * "cheap within budget: $1.25 of $5.00 (B4)": the budget reason of `budgets[]`, and the start of
 * the reason of every connection the budget decided.
 */
export function describeRungBudget(budget: RungBudgetReading): string {
  switch (budget.rule) {
    case "B1":
      return `no ${budget.rung} budget set: never budget-exhausted (B1)`;
    case "B2":
      return `${budget.rung} rung disabled by a budget of ${formatUsd(budget.limitUsd)} (B2)`;
    case "B3":
      return `no spend accounting for ${budget.rung}: not gated (B3)`;
    case "B4":
      return budget.exhausted
        ? `${budget.rung} budget spent: ${formatUsd(budget.spentUsd)} of ${formatUsd(budget.limitUsd)} (B4)`
        : `${budget.rung} within budget: ${formatUsd(budget.spentUsd)} of ${formatUsd(budget.limitUsd)} (B4)`;
  }
}

function quotaPhrase(detail: ConnectionDetail): string {
  const { state, thresholdPercent } = detail;
  const latched = state?.hasBeenExhausted === true;
  const remaining = formatPercent(state?.remainingPercent ?? null);
  const bound = latched
    ? `re-entry floor ${formatPercent(thresholdPercent)} since exhaustion`
    : `exit cutoff ${formatPercent(thresholdPercent)}`;
  switch (detail.quotaOutcome) {
    case QuotaOutcome.NoState:
      return "no quota reading (Q1)";
    case QuotaOutcome.ResetPassed:
      return `reading's window reset at ${state?.resetAt}: stale until refreshed (S2)`;
    case QuotaOutcome.Exhausted:
      return "quota exhausted (Q2)";
    case QuotaOutcome.UnknownStatus:
      return "quota status unknown (Q3)";
    case QuotaOutcome.Stale:
      return `reading observed at ${state?.checkedAt} is stale (Q4)`;
    case QuotaOutcome.NoRemaining:
      return "remaining quota unknown (Q5)";
    case QuotaOutcome.AboveThreshold:
      return `remaining ${remaining} > ${bound} (${latched ? "H2" : "Q6"})`;
    case QuotaOutcome.Served:
      return `a probe was served at ${state?.checkedAt}: headroom verified (P3)`;
    default:
      return `remaining ${remaining} ≤ ${bound} (${latched ? "H2" : "Q6"})`;
  }
}

function isUnverified(outcome: QuotaOutcome): boolean {
  return (
    isOutcomeUsable(outcome, true) &&
    outcome !== QuotaOutcome.AboveThreshold &&
    outcome !== QuotaOutcome.Served
  );
}

function verdictOf(
  detail: ConnectionDetail,
  grouping: LadderGrouping,
): {
  rule: ExplainRule;
  reason: string;
} {
  const { billing } = detail;
  const autoId = grouping === "subscription" ? "auto/subscription" : "auto/thrifty";
  const latched = detail.state?.hasBeenExhausted === true;
  const quotaRule: ExplainRule =
    (detail.quotaOutcome === QuotaOutcome.AboveThreshold ||
      detail.quotaOutcome === QuotaOutcome.AtOrBelowThreshold) &&
    latched
      ? "H2"
      : quotaRuleOf(detail.quotaOutcome);
  switch (detail.decision) {
    case Decision.NotSubscription: {
      const what =
        billing.billing === "keyless"
          ? "keyless is not a plan subscription"
          : billing.billing === "unknown"
            ? "billing unknown (uncurated, C7)"
            : `billing ${billing.billing}`;
      return { rule: "SUB2", reason: `${what}: excluded from ${autoId} (SUB2)` };
    }
    case Decision.OverageNotHardStop:
      return detail.effective.basis === "evidence-on"
        ? {
            rule: "E3",
            reason: `${detail.effective.reason}: excluded from ${autoId} (E3, SUB2)`,
          }
        : {
            rule: "SUB2",
            reason: `overage ${detail.effective.overage}: excluded from ${autoId} (SUB2)`,
          };
    case Decision.Budget:
      return {
        rule: detail.budget!.rule,
        reason: `${describeRungBudget(detail.budget!)}: excluded from ${autoId}`,
      };
    case Decision.Quota: {
      if (!isUnverified(detail.quotaOutcome)) {
        return { rule: quotaRule, reason: `${quotaPhrase(detail)}: excluded from ${autoId}` };
      }
      if (grouping === "subscription" && detail.probeable) {
        return {
          rule: "P1",
          reason: `${quotaPhrase(detail)}: hard-stop plan, admitted only as a probe, one at a time (SUB1, P1)`,
        };
      }
      return grouping === "subscription"
        ? {
            rule: "SUB1",
            reason: `${quotaPhrase(detail)}: unverified quota is never admitted to ${autoId} (SUB1)`,
          }
        : {
            rule: quotaRule,
            reason: `${quotaPhrase(detail)}: not admitted, admitUnknownQuota is false`,
          };
    }
    default: {
      if (detail.budget) {
        const quota =
          detail.quotaOutcome === QuotaOutcome.AboveThreshold ? `; ${quotaPhrase(detail)}` : "";
        return { rule: detail.budget.rule, reason: `${describeRungBudget(detail.budget)}${quota}` };
      }
      if (isUnverified(detail.quotaOutcome)) {
        return { rule: "THR1", reason: `${quotaPhrase(detail)}: admitted (THR1)` };
      }
      const hardStop =
        detail.effective.basis === "evidence-off"
          ? `hard-stop (${detail.effective.reason})`
          : "hard-stop";
      return {
        rule: grouping === "subscription" ? "SUB2" : quotaRule,
        reason:
          grouping === "subscription"
            ? `plan subscription, ${hardStop}, ${quotaPhrase(detail)} (SUB2)`
            : quotaPhrase(detail),
      };
    }
  }
}

function explainConnection(
  candidate: LadderCandidate,
  detail: ConnectionDetail,
  grouping: LadderGrouping,
): ExplainedConnection {
  const { state, billing, budget } = detail;
  const { rule, reason } = verdictOf(detail, grouping);
  return {
    provider: candidate.provider,
    model: candidate.model,
    connectionId: detail.connectionId,
    authType: detail.authType,
    rung: RUNG_ORDER[detail.rungIndex]!,
    rungIndex: detail.rungIndex,
    billing: billing.billing,
    overage: detail.effective.overage,
    catalogOverage: billing.overage,
    overageEvidence: {
      overage: detail.effective.overage,
      basis: detail.effective.basis,
      evidence: detail.effective.observation?.evidence ?? null,
      observedAt: detail.effective.observation?.observedAt ?? null,
      source: detail.effective.observation?.source ?? null,
      detail: detail.effective.observation?.detail ?? null,
      reason: detail.effective.reason,
    },
    probeable: grouping === "subscription" && detail.probeable,
    matchedBy: billing.matchedBy,
    billingReason: billing.reason,
    tier: detail.tier,
    quota: {
      present: state !== undefined,
      status: state?.status ?? null,
      remainingPercent: state?.remainingPercent ?? null,
      resetAt: state?.resetAt ?? null,
      checkedAt: state?.checkedAt ?? null,
      stale:
        detail.quotaOutcome === QuotaOutcome.Stale ||
        detail.quotaOutcome === QuotaOutcome.ResetPassed,
      hasBeenExhausted: state?.hasBeenExhausted ?? false,
      thresholdPercent: detail.thresholdPercent,
      usable: isOutcomeUsable(detail.quotaOutcome, detail.admitUnknownQuota),
      rule: quotaRuleOf(detail.quotaOutcome),
    },
    budget: budget
      ? {
          rung: budget.rung,
          limitUsd: budget.limitUsd,
          spentUsd: budget.spentUsd,
          exhausted: budget.exhausted,
          rule: budget.rule,
        }
      : null,
    verdict: detail.decision === Decision.In ? "in" : "out",
    rule,
    reason,
  };
}

function candidateReason(
  candidate: LadderCandidate,
  connections: ExplainedConnection[],
  grouping: LadderGrouping,
): string {
  const inside = connections.filter((c) => c.verdict === "in");
  if (connections.length === 0) return "empty allowlist: no connection to use (SUB4)";
  if (inside.length === 0) {
    return grouping === "subscription"
      ? "no connection passed: dropped (SUB4)"
      : "no usable connection: dropped";
  }
  const rungs = [...new Set(inside.map((c) => c.rung))];
  const counted =
    candidate.connectionId != null || candidate.allowedConnectionIds === undefined
      ? "its connection passed"
      : `${inside.length} of ${connections.length} connections passed`;
  return rungs.length > 1 ? `${counted}, split across ${rungs.join(", ")} (THR4)` : counted;
}

function earliestPlanReset(candidates: ExplainedCandidate[], nowMs: number): string | null {
  let earliest: string | null = null;
  let earliestMs = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    for (const connection of candidate.connections) {
      const resetAt = connection.quota.resetAt;
      if (connection.billing !== "subscription" || resetAt === null) continue;
      const resetMs = Date.parse(resetAt);
      if (resetMs > nowMs && resetMs < earliestMs) {
        earliestMs = resetMs;
        earliest = resetAt;
      }
    }
  }
  return earliest;
}

/**
 * Explains one grouping over a pool: every candidate and every connection with its rung,
 * billing, tier, quota reading, budget, verdict and the reason for it, plus the exact output
 * of `filterSubscriptionOnlyCandidates` (grouping `subscription`) or `orderPoolByRung`
 * (`thrifty`). It runs the same decision code, so it cannot disagree with them; it also reads
 * the quota of connections that billing rules out, for display. Contains no credentials: only
 * what the pool and the resolvers return.
 */
export function explainPool(
  pool: readonly LadderCandidate[],
  options: LadderOptions,
  grouping: LadderGrouping,
): LadderExplanation {
  const recorder: LadderRecorder = {
    connections: [],
    sources: [],
    rungIndexes: [],
    nowMs: 0,
    settings: {
      admitUnknownQuota: false,
      exitCutoffPercent: DEFAULT_EXIT_CUTOFF_PERCENT,
      reentryMinRemainingPercent: DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
      maxStateAgeMs: DEFAULT_MAX_STATE_AGE_MS,
    },
    budgets: [],
  };
  const output = runLadder(pool, options, grouping, recorder);
  const candidates = pool.map((candidate, position): ExplainedCandidate => {
    const connections = recorder.connections[position]!.map((detail) =>
      explainConnection(candidate, detail, grouping),
    );
    return {
      position,
      provider: candidate.provider,
      model: candidate.model,
      connectionId: candidate.connectionId ?? null,
      verdict: connections.some((c) => c.verdict === "in") ? "in" : "out",
      reason: candidateReason(candidate, connections, grouping),
      connections,
    };
  });
  const result = output.map((target, i): ExplainedTarget => {
    const candidatePosition = recorder.sources[i]!;
    return {
      candidatePosition,
      provider: target.provider,
      model: target.model,
      rung: RUNG_ORDER[recorder.rungIndexes[i]!]!,
      connectionId: target.connectionId ?? null,
      allowedConnectionIds: target.allowedConnectionIds ? [...target.allowedConnectionIds] : null,
    };
  });
  const nowMs = recorder.nowMs;
  return {
    autoId: grouping === "subscription" ? "auto/subscription" : "auto/thrifty",
    grouping,
    evaluatedAt: Number.isFinite(nowMs) ? new Date(nowMs).toISOString() : null,
    settings: recorder.settings,
    budgets: recorder.budgets.map((budget) => ({ ...budget, reason: describeRungBudget(budget) })),
    candidates,
    result,
    earliestPlanResetAt: earliestPlanReset(candidates, nowMs),
    probeable:
      grouping === "subscription"
        ? candidates.flatMap((candidate) =>
            candidate.connections
              .filter((connection) => connection.probeable)
              .map((connection) => ({
                candidatePosition: candidate.position,
                connectionId: connection.connectionId,
              })),
          )
        : [],
  };
}
