export type {
  Cooldown,
  CooldownBook,
  CooldownBookOptions,
  CooldownScopeOptions,
} from "./cooldown-book";
export { createCooldownBook } from "./cooldown-book";
export type { QuotaCacheErrorCode, QuotaCacheErrorInit } from "./errors";
export { QuotaCacheError } from "./errors";
export type { HysteresisBand } from "./hysteresis";
export { nextExhaustionLatch } from "./hysteresis";
export { createMemoryQuotaStore } from "./memory-store";
export { scopeAppliesToModel } from "./model-scope";
export type { OverageEvidence, OverageObservation } from "./overage-evidence";
export { parseOverageObservation } from "./overage-evidence";
export { EVIDENCE_REWRITE_INTERVAL_MS } from "./overage-evidence-book";
export type { ProbeLease } from "./probe-leases";
export type { QuotaCache, QuotaCacheOptions } from "./quota-cache";
export { createQuotaCache } from "./quota-cache";
export type { QuotaState, QuotaWindow, QuotaWindowScope } from "./quota-state";
export { clampCooldownToReset, isStateStaleForReset } from "./quota-state";
export type {
  QuotaStore,
  QuotaStoreBucket,
  QuotaStoreLogger,
  QuotaStoreRecord,
} from "./quota-store";
export { QUOTA_STORE_BUCKETS } from "./quota-store";
export type { KnownReset, ObserveFailureOptions } from "./quota-windows";
export type {
  RefreshOutcome,
  RefreshScheduler,
  RefreshSchedulerOptions,
} from "./refresh-scheduler";
export { createRefreshScheduler } from "./refresh-scheduler";
export type {
  SessionBook,
  SessionBookOptions,
  SessionPin,
  SessionTarget,
} from "./session-book";
export { createSessionBook } from "./session-book";
export type {
  BoundableSignals,
  GenericResponseInput,
  HeaderInput,
  ResponseInput,
  ResponseSignalParser,
  UsagePayloadParser,
  UsageSignals,
} from "./signals";
export {
  boundSignals,
  claudeUsageEvidence,
  codexUsageEvidence,
  copilotUsageEvidence,
  failureOfStatus,
  isSilentSuccess,
  OPENROUTER_FREE_SCOPE,
  parseAnthropicApiResponse,
  parseClaudeOauthUsage,
  parseClaudeSubscriptionResponse,
  parseCodeAssistQuota,
  parseCodexResponse,
  parseCodexUsage,
  parseCopilotQuota,
  parseCopilotResponse,
  parseEpoch,
  parseGeminiResponse,
  parseGenericResponse,
  parseGoDuration,
  parseHttpDate,
  parseIetfRateLimit,
  parseOpenAiResponse,
  parseOpenRouterKey,
  parseOpenRouterResponse,
  parseProseRetryHint,
  parseResponseSignals,
  parseRetryAfter,
  parseUsagePayload,
  parseUsageSignals,
  readFlag,
  USAGE_ENDPOINT_PARSERS,
  usagePayloadEvidence,
} from "./signals";
export type { ImplausibleTime } from "./time-plausibility";
export {
  isPlausibleInstant,
  LONGEST_WINDOW_MS,
  latestPlausibleMs,
  PLAUSIBILITY_SKEW_MS,
  UNKNOWN_WINDOW_MS,
  windowHorizonMs,
} from "./time-plausibility";
export type {
  OverageSignal,
  ResponseSignals,
  UpstreamFailure,
  UpstreamFailureKind,
} from "./upstream-failure";
