export { parseAnthropicApiResponse } from "./anthropic-api";
export { parseClaudeOauthUsage } from "./claude-oauth-usage";
export { parseClaudeSubscriptionResponse } from "./claude-subscription";
export { parseCodeAssistQuota } from "./code-assist-quota";
export { parseCodexResponse } from "./codex";
export { parseCodexUsage } from "./codex-usage";
export { parseCopilotResponse } from "./copilot";
export { parseCopilotQuota } from "./copilot-quota";
export { failureOfStatus } from "./failure-of-status";
export { parseGeminiResponse } from "./gemini";
export type { GenericResponseInput } from "./generic";
export { parseGenericResponse } from "./generic";
export type { HeaderInput } from "./header-input";
export { parseOpenAiResponse } from "./openai";
export { OPENROUTER_FREE_SCOPE, parseOpenRouterResponse } from "./openrouter";
export { parseOpenRouterKey } from "./openrouter-key";
export {
  claudeUsageEvidence,
  codexUsageEvidence,
  copilotUsageEvidence,
  readFlag,
  usagePayloadEvidence,
} from "./overage-signals";
export { parseEpoch } from "./parse-epoch";
export { parseGoDuration } from "./parse-go-duration";
export { parseHttpDate } from "./parse-http-date";
export { parseIetfRateLimit } from "./parse-ietf-rate-limit";
export { parseProseRetryHint } from "./parse-prose-retry-hint";
export type {
  BoundableSignals,
  UsagePayloadParser,
  UsageSignals,
} from "./parse-response-signals";
export {
  boundSignals,
  isSilentSuccess,
  parseResponseSignals,
  parseUsagePayload,
  parseUsageSignals,
  USAGE_ENDPOINT_PARSERS,
} from "./parse-response-signals";
export { parseRetryAfter } from "./parse-retry-after";
export type { ResponseInput, ResponseSignalParser } from "./response-input";
