export type { QuotaState, QuotaWindow, QuotaWindowScope } from "./quota-state";
export { clampCooldownToReset, isStateStaleForReset } from "./quota-state";
export type { ResponseSignals, UpstreamFailure, UpstreamFailureKind } from "./upstream-failure";
