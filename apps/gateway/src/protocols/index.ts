export type {
  ClientStream,
  ClientWire,
  Codec,
  EncodeRequestOptions,
  EncodeResponseOptions,
  ErrorFields,
  WireForwarding,
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
  type TranslatedRequest,
  type TranslatedResponse,
  translateRequest,
  translateResponse,
} from "./hub";
export type { IrRequest, IrResponse, IrStreamError, IrUsage } from "./ir";
export { type Leg, legOf, type UpstreamBody, type WholeAnswer } from "./leg";
export { ProtocolError, type ProtocolErrorCode } from "./protocol-error";
export {
  CLIENT_PROTOCOL_NAMES,
  type ClientProtocolName,
  CODECS,
  CONFIG_PROTOCOL_NAMES,
  type ConfigProtocolName,
  clientWireOf,
  codecFor,
  configNameOf,
  PROTOCOL_NAMES,
  type ProtocolName,
  protocolOfConfig,
} from "./registry";
export { createFrameRelay, type FrameRelayOptions } from "./sse/frame-relay";
export { formatSse, formatSseEvents } from "./sse/sse-format";
export { createSseParser, type SseParser, type SseParserOptions } from "./sse/sse-parser";
export type { NormalizedUsage, SseEvent, StreamFailure } from "./types";
