export type {
  ConnectionBillingClass,
  ConnectionBillingEntry,
  ConnectionOverageBehavior,
} from "@planfirst/billing-catalog";
export {
  classifyConnectionBilling,
  isOverageSafe,
  isPlanIncluded,
} from "./classify-connection-billing";
export type {
  ConnectionBillingRule,
  ConnectionBillingVerdict,
  ConnectionClassifier,
  ConnectionRef,
} from "./connection-classifier";
export { createConnectionClassifier } from "./connection-classifier";
export type {
  EffectiveOverage,
  EffectiveOverageBasis,
  OverageEvidenceReading,
} from "./effective-overage";
export { effectiveOverage } from "./effective-overage";
