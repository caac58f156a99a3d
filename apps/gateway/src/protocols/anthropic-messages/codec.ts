import type { Codec } from "../codec";
import { checkMessageRoles } from "../message-roles";
import { passThroughBody } from "../pass-through";
import { parseWire } from "../wire-parse";
import { messagesRequestSchema, usageFromAnthropic } from "./anthropic-messages-api";
import { messagesConversationOpening } from "./conversation-opening";
import { decodeMessagesRequest } from "./decode-request";
import { decodeMessagesResponse } from "./decode-response";
import { decodeMessagesStream } from "./decode-stream";
import { encodeMessagesRequest } from "./encode-request";
import { encodeMessagesResponse } from "./encode-response";
import { encodeMessagesStream, messagesErrorFrames } from "./encode-stream";
import { messagesErrorBody } from "./error-body";

// Claude Code sends `system` inside `messages`; the codec accepts it there.
const ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system"]);

/** Events whose payload the relay reads: usage, the end and errors. */
function tracked(event: string | undefined): boolean {
  return (
    event === undefined ||
    event === "message_start" ||
    event === "message_delta" ||
    event === "message_stop" ||
    event === "error"
  );
}

/** The Anthropic Messages API codec (`POST /v1/messages`; config name `anthropic`). */
export const anthropicMessagesCodec = {
  protocol: "anthropic-messages",
  configName: "anthropic",
  decodeRequest: decodeMessagesRequest,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  encodeResponse: encodeMessagesResponse,
  decodeStream: decodeMessagesStream,
  encodeStream: encodeMessagesStream,
  relay: {
    tracks: (event) => tracked(event),
    isTerminal: (event, data) =>
      event === "message_stop" || (event === undefined && data.includes('"message_stop"')),
    terminator: [],
    errorFrames: (error) => messagesErrorFrames(error),
  },
  responseUsage: (body) => usageFromAnthropic(body.usage),
  freeformTools: false,
  // The API version and beta flags are the client's to choose (Claude Code's betas are what its
  // requests need), and Claude Code asks for `?beta=true`; the connection's own betas stay first.
  forwarding: { query: ["beta=true"] },
  client: {
    errorBody: messagesErrorBody,
    validateRequest(body) {
      parseWire(messagesRequestSchema, body, "not a valid Messages request");
      checkMessageRoles(body, ROLES);
    },
    passThroughRequest: passThroughBody,
    hiddenFrames: () => null,
    costScan: "anthropic",
    conversationOpening: messagesConversationOpening,
  },
} satisfies Codec<"anthropic-messages", "anthropic">;
