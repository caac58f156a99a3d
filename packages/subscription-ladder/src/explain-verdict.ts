import { type ConnectionDetail, Decision, type LadderGrouping } from "./ladder-engine";
import type { ExplainRule } from "./ladder-explanation";
import { isOutcomeUsable, QuotaOutcome, quotaRuleOf } from "./quota-usability";
import type { RungBudgetReading } from "./rung-budget";

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

/** The rule and the sentence of a connection's verdict, from what the ladder recorded of it. */
export function verdictOf(
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
