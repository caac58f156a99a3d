export type { EconomicTier, TierRule, TierVerdict } from "./economic-tier";
export { ECONOMIC_TIERS, isEconomicTier } from "./economic-tier";
export type {
  TierOverride,
  TierResolver,
  TierResolverOptions,
} from "./tier-resolver";
export { classifyTier, createTierResolver } from "./tier-resolver";
export type { TierResolverErrorCode, TierResolverErrorInit } from "./tier-resolver-error";
export { TierResolverError } from "./tier-resolver-error";
