export type { CodeAssistAccount } from "./code-assist-account";
export type { CodexToolCall } from "./codex-stream";
export { completionBody, type StreamFrames, streamFrames } from "./completions";
export { COPILOT_KNOWN_INTEGRATION_IDS, copilotIdeHeaderRefusal } from "./copilot-ide-headers";
export { ECHO_CREDENTIAL } from "./credential-echo";
export { credentialLabel } from "./credential-label";
export {
  anthropicOverloaded,
  badRequest,
  claudeRateLimited,
  codexUsageLimitReached,
  copilotQuotaExceeded,
  openAiInsufficientQuota,
  openAiRateLimited,
  serverError,
  unauthorized,
} from "./error-replies";
export { CODEX_FAKE_CLIENT_ID, type FakeCodex } from "./fake-codex";
export type { FakeCopilot } from "./fake-copilot";
export {
  type FakeGeminiCodeAssist,
  type FakeGeminiCodeAssistOptions,
  GEMINI_FAKE_CLIENT_ID,
  type GeminiHit,
  startFakeGeminiCodeAssist,
} from "./fake-gemini-code-assist";
export type { FakeKimi } from "./fake-kimi";
export {
  type FakePlanProviders,
  type FakePlanProvidersOptions,
  type PlanHit,
  startFakePlanProviders,
} from "./fake-plan-providers";
export { type FakeUpstreamOptions, startFakeUpstream } from "./fake-upstream";
export type { FakeZai } from "./fake-zai";
export type { FakeOauthControls } from "./plan-oauth";
export {
  codexUsagePayload,
  copilotModelsPayload,
  copilotUserPayload,
  kimiUsagePayload,
  zaiUsagePayload,
} from "./plan-payloads";
export {
  type AnthropicBucket,
  anthropicApiHeaders,
  type ClaudeUnifiedOptions,
  type ClaudeUnifiedStatus,
  type ClaudeWindow,
  type CodexWindow,
  claudeUnifiedHeaders,
  codexHeaders,
  goDuration,
  type OpenAiBucket,
  openAiRateLimitHeaders,
} from "./quota-headers";
export {
  createTokenAuthority,
  type IssuedTokens,
  type TokenAuthority,
  type TokenAuthorityOptions,
} from "./token-authority";
export type {
  FakeRequest,
  FakeUpstream,
  Hit,
  HitAuth,
  Reply,
  ReplyStream,
  ReplyUsage,
  Script,
  UsageEndpoint,
  WireProtocol,
} from "./types";
