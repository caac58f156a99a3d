export { type BodyRules, bodyRulesKey } from "./body-rules";
export type { ClientStream, EncodeRequestOptions, WireForwarding } from "./codec";
export { createStreamCollector } from "./collect-stream";
export type { ConversationOpening } from "./conversation-opening";
export { conversationOpeningOf, encodeAnswer, type TranslatedResponse } from "./hub";
export type { IrStreamError, IrUsage } from "./ir";
export { legOf, type UpstreamBody, type WholeAnswer } from "./leg";
export { ProtocolError } from "./protocol-error";
export {
  type ClientProtocolName,
  CODECS,
  clientWireOf,
  codecFor,
  configNameOf,
  type ProtocolName,
  protocolOfConfig,
} from "./registry";
export { createFrameRelay } from "./sse/frame-relay";
export { formatSseEvents } from "./sse/sse-format";
export { createSseParser } from "./sse/sse-parser";
export type { NormalizedUsage, SseEvent } from "./types";
