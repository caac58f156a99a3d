import type { Codec } from "../codec";
import { openAiErrorBody } from "../openai-chat/error-body";
import { passThroughBody } from "../pass-through";
import { responsesConversationOpening } from "./conversation-opening";
import { decodeResponsesRequest } from "./decode-request";
import { decodeResponsesResponse } from "./decode-response";
import { decodeResponsesStream } from "./decode-stream";
import { encodeResponsesRequest } from "./encode-request";
import { encodeResponsesResponse } from "./encode-response";
import { encodeResponsesStream, responsesErrorFrames } from "./encode-stream";
import { usageFromResponses } from "./openai-responses-api";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The OpenAI Responses API codec (`POST /v1/responses`; config name `openai-responses`). */
export const openAiResponsesCodec = {
  protocol: "openai-responses",
  configName: "openai-responses",
  decodeRequest: decodeResponsesRequest,
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  decodeStream: decodeResponsesStream,
  encodeStream: encodeResponsesStream,
  promptCacheKeyField: "prompt_cache_key",
  relay: {
    // Everything but the terminal and error events is copied unread.
    tracks: (event) => event === undefined || event === "error" || TERMINAL.has(event),
    isTerminal: (event) => event !== undefined && TERMINAL.has(event),
    terminator: [],
    errorFrames: (error) => responsesErrorFrames(error),
  },
  responseUsage: (body) => usageFromResponses(body.usage),
  freeformTools: true,
  forwarding: null,
  client: {
    errorBody: openAiErrorBody,
    // Only the edge's shape walk applies: a Responses upstream reads the body as sent and
    // answers for it, and the decoder checks it before any translation.
    validateRequest: () => {},
    passThroughRequest: passThroughBody,
    hiddenFrames: () => null,
    costScan: "openai",
    conversationOpening: responsesConversationOpening,
  },
} satisfies Codec<"openai-responses", "openai-responses">;
