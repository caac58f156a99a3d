import type { Codec } from "../codec";
import { checkMessageRoles } from "../message-roles";
import { parseWire } from "../wire-parse";
import { chatConversationOpening } from "./conversation-opening";
import { decodeChatRequest } from "./decode-request";
import { decodeChatResponse } from "./decode-response";
import { decodeChatStream } from "./decode-stream";
import { encodeChatRequest } from "./encode-request";
import { encodeChatResponse } from "./encode-response";
import { chatErrorFrames, encodeChatStream } from "./encode-stream";
import { openAiErrorBody } from "./error-body";
import { chatRequestSchema, usageFromChat } from "./openai-chat-api";
import { includeUsageRequested, isUsageOnlyChunk, passThroughChat } from "./pass-through";

const FINISH_REASON_SET = /"finish_reason":\s*"/;
const USAGE_SET = /"usage":\s*\{/;
const ROLES: ReadonlySet<string> = new Set([
  "system",
  "developer",
  "user",
  "assistant",
  "tool",
  "function",
]);

/** The OpenAI chat completions codec (`POST /v1/chat/completions`; config name `openai`). */
export const openAiChatCodec = {
  protocol: "openai-chat",
  configName: "openai",
  decodeRequest: decodeChatRequest,
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  encodeResponse: encodeChatResponse,
  decodeStream: decodeChatStream,
  encodeStream: encodeChatStream,
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
  responseUsage: (body) => usageFromChat(body.usage),
  freeformTools: false,
  forwarding: null,
  client: {
    errorBody: openAiErrorBody,
    validateRequest(body) {
      parseWire(chatRequestSchema, body, "not a valid chat completions request");
      checkMessageRoles(body, ROLES);
    },
    passThroughRequest: passThroughChat,
    hiddenFrames: (body) => (includeUsageRequested(body) ? null : isUsageOnlyChunk),
    costScan: "openai",
    conversationOpening: chatConversationOpening,
  },
} satisfies Codec<"openai-chat", "openai">;
