import { describeRungBudget, verdictOf } from "./explain-verdict";
import {
  type ConnectionDetail,
  Decision,
  type LadderGrouping,
  type LadderRecorder,
  runLadder,
} from "./ladder-engine";
import type {
  ExplainedCandidate,
  ExplainedConnection,
  ExplainedTarget,
  LadderExplanation,
} from "./ladder-explanation";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import {
  DEFAULT_EXIT_CUTOFF_PERCENT,
  DEFAULT_MAX_STATE_AGE_MS,
  DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
  isOutcomeUsable,
  QuotaOutcome,
  quotaRuleOf,
} from "./quota-usability";
import { RUNG_ORDER } from "./rung";

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
