export type { ConnectionBillingVerdict } from "@planfirst/connection-billing";
export type { QuotaState } from "@planfirst/quota-cache";
export type { EconomicTier } from "@planfirst/tier-resolver";
export { assignRung } from "./assign-rung";
export type { AdvertisedAutoId, AutoTier, ParsedAutoId } from "./auto-id";
export { ADVERTISED_AUTO_IDS, isPaidTierAutoId, parseAutoId } from "./auto-id";
export { earliestUsefulReset } from "./earliest-useful-reset";
export { explainPool } from "./explain-pool";
export { describeRungBudget } from "./explain-verdict";
export type { LadderGrouping } from "./ladder-engine";
export type {
  ExplainedBudget,
  ExplainedCandidate,
  ExplainedConnection,
  ExplainedOverage,
  ExplainedQuota,
  ExplainedRungBudget,
  ExplainedTarget,
  ExplainRule,
  LadderExplanation,
} from "./ladder-explanation";
export type { LadderCandidate, LadderOptions } from "./ladder-options";
export { orderPoolByRung } from "./order-pool";
export type { ProbeableConnection } from "./probeable";
export { findProbeableConnections, isProbeable } from "./probeable";
export type { QuotaRule, QuotaUsabilityOptions } from "./quota-usability";
export {
  DEFAULT_EXIT_CUTOFF_PERCENT,
  DEFAULT_MAX_STATE_AGE_MS,
  DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
  isQuotaUsable,
} from "./quota-usability";
export type { LadderRung, PaidRung, QuotaRung } from "./rung";
export { isPaidRung, PAID_RUNGS, QUOTA_RUNGS, RUNG_ORDER, rungIndex } from "./rung";
export type {
  RungBudgetOptions,
  RungBudgetProblem,
  RungBudgetReading,
  RungBudgetRule,
  RungBudgetUsd,
} from "./rung-budget";
export { isRungBudgetExhausted, readRungBudget, validateRungBudgets } from "./rung-budget";
export { filterSubscriptionOnlyCandidates } from "./subscription-only";
