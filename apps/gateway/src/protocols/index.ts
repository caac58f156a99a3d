export { ProtocolError, type ProtocolErrorCode } from "./protocol-error";
export {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  toUpstreamRequest,
  type UpstreamRequestOptions,
} from "./request-translation";
export {
  type ClientResponse,
  type ClientResponseOptions,
  toClientResponse,
} from "./response-translation";
export { createSseParser, formatSse, type SseParser, type SseParserOptions } from "./sse";
export {
  createStreamBridge,
  type StreamBridge,
  type StreamBridgeOptions,
  type UpstreamStreamError,
} from "./stream-bridge";
export { createStreamRelay, type StreamRelay } from "./stream-relay";
export type { NormalizedUsage, SseEvent, StreamFailure, WireProtocol } from "./types";
export { extractUsage } from "./usage";
