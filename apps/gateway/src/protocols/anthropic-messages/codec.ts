import type { Codec } from "../codec";
import { messagesConversationOpening } from "./conversation-opening";
import { decodeMessagesRequest } from "./decode-request";
import { decodeMessagesResponse } from "./decode-response";
import { decodeMessagesStream } from "./decode-stream";
import { encodeMessagesRequest } from "./encode-request";
import { encodeMessagesResponse } from "./encode-response";
import { encodeMessagesStream, messagesErrorFrames } from "./encode-stream";

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

/** The Anthropic Messages API codec (`POST /v1/messages`). */
export const anthropicMessagesCodec: Codec = {
  protocol: "anthropic-messages",
  decodeRequest: decodeMessagesRequest,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  encodeResponse: encodeMessagesResponse,
  decodeStream: decodeMessagesStream,
  encodeStream: encodeMessagesStream,
  conversationOpening: messagesConversationOpening,
  relay: {
    tracks: (event) => tracked(event),
    isTerminal: (event, data) =>
      event === "message_stop" || (event === undefined && data.includes('"message_stop"')),
    terminator: [],
    errorFrames: (error) => messagesErrorFrames(error),
  },
};
