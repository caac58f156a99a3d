export { completionBody, type StreamFrames, streamFrames } from "./completions";
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
export { type FakeUpstreamOptions, startFakeUpstream } from "./fake-upstream";
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
