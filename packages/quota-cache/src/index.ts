export type { QuotaState, QuotaWindow, QuotaWindowScope } from "./quota-state";
export { clampCooldownToReset, isStateStaleForReset } from "./quota-state";
