import type { Codec } from "../codec";
import { chatConversationOpening } from "./conversation-opening";
import { decodeChatRequest } from "./decode-request";
import { decodeChatResponse } from "./decode-response";
import { decodeChatStream } from "./decode-stream";
import { encodeChatRequest } from "./encode-request";
import { encodeChatResponse } from "./encode-response";
import { chatErrorFrames, encodeChatStream } from "./encode-stream";

const FINISH_REASON_SET = /"finish_reason":\s*"/;
const USAGE_SET = /"usage":\s*\{/;

/** The OpenAI chat completions codec (`POST /v1/chat/completions`). */
export const openAiChatCodec: Codec = {
  protocol: "openai-chat",
  decodeRequest: decodeChatRequest,
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  encodeResponse: encodeChatResponse,
  decodeStream: decodeChatStream,
  encodeStream: encodeChatStream,
  conversationOpening: chatConversationOpening,
  promptCacheKeyField: "prompt_cache_key",
  relay: {
    // Only chunks that can carry usage, a finish or an error are parsed: the hot path is a copy.
    tracks: (_event, data) =>
      data === "[DONE]" ||
      USAGE_SET.test(data) ||
      data.includes('"error"') ||
      FINISH_REASON_SET.test(data),
    isTerminal: (_event, data) => data === "[DONE]",
    terminator: [{ data: "[DONE]" }],
    errorFrames: (error) => chatErrorFrames(error),
  },
};
