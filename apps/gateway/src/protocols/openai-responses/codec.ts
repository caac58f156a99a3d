import type { Codec } from "../codec";
import { responsesConversationOpening } from "./conversation-opening";
import { decodeResponsesRequest } from "./decode-request";
import { decodeResponsesResponse } from "./decode-response";
import { decodeResponsesStream } from "./decode-stream";
import { encodeResponsesRequest } from "./encode-request";
import { encodeResponsesResponse } from "./encode-response";
import { encodeResponsesStream, responsesErrorFrames } from "./encode-stream";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The OpenAI Responses API codec (`POST /v1/responses`). */
export const openAiResponsesCodec: Codec = {
  protocol: "openai-responses",
  decodeRequest: decodeResponsesRequest,
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  decodeStream: decodeResponsesStream,
  encodeStream: encodeResponsesStream,
  conversationOpening: responsesConversationOpening,
  promptCacheKeyField: "prompt_cache_key",
  relay: {
    // Everything but the terminal and error events is copied unread.
    tracks: (event) => event === undefined || event === "error" || TERMINAL.has(event),
    isTerminal: (event) => event !== undefined && TERMINAL.has(event),
    terminator: [],
    errorFrames: (error) => responsesErrorFrames(error),
  },
};
