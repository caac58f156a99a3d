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
export { createSseParser, formatSse, type SseParser } from "./sse";
export {
  createStreamBridge,
  type StreamBridge,
  type StreamBridgeOptions,
  type UpstreamStreamError,
} from "./stream-bridge";
export type { NormalizedUsage, SseEvent, StreamFailure, WireProtocol } from "./types";
export { extractUsage } from "./usage";
