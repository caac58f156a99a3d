export type {
  ClientStream,
  Codec,
  EncodeRequestOptions,
  EncodeResponseOptions,
  ProtocolName,
} from "./codec";
export {
  type CollectedAnswer,
  createStreamCollector,
  foldStreamParts,
  type StreamCollector,
} from "./collect-stream";
export type { ConversationOpening } from "./conversation-opening";
export { DEGRADE_POLICY, degradeTableMarkdown } from "./degrade-policy";
export {
  conversationOpeningOf,
  createStreamTranslator,
  encodeAnswer,
  passThroughRequest,
  type TranslatedRequest,
  type TranslatedResponse,
  translateRequest,
  translateResponse,
} from "./hub";
export type { IrRequest, IrResponse, IrStreamError, IrUsage } from "./ir";
export { ProtocolError, type ProtocolErrorCode } from "./protocol-error";
export { CODECS, codecFor, PROTOCOL_NAMES } from "./registry";
export { responseUsage } from "./response-usage";
export { createFrameRelay, type FrameRelayOptions } from "./sse/frame-relay";
export { formatSse, formatSseEvents } from "./sse/sse-format";
export { createSseParser, type SseParser, type SseParserOptions } from "./sse/sse-parser";
export type { NormalizedUsage, SseEvent, StreamFailure, WireProtocol } from "./types";
export { validateClientRequest } from "./validate-client-request";
export { errorShapeOf, hubProtocolOf } from "./wire-protocols";
