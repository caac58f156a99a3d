import { anthropicMessagesCodec } from "./anthropic-messages/codec";
import type { ClientProtocolName, Codec, ProtocolName } from "./codec";
import { geminiCodec } from "./gemini/codec";
import { openAiChatCodec } from "./openai-chat/codec";
import { openAiResponsesCodec } from "./openai-responses/codec";

/** Every codec of the hub, by protocol. A new protocol is one codec folder plus one line here. */
export const CODECS: Readonly<Record<ProtocolName, Codec>> = {
  "openai-chat": openAiChatCodec,
  "anthropic-messages": anthropicMessagesCodec,
  "openai-responses": openAiResponsesCodec,
  gemini: geminiCodec,
};

/** The names of the protocols the hub speaks both ways (clients and upstreams). */
export const PROTOCOL_NAMES = (Object.keys(CODECS) as ProtocolName[]).filter(
  (name): name is ClientProtocolName => name !== "gemini",
);

/** The codec of `protocol`. */
export function codecFor(protocol: ProtocolName): Codec {
  return CODECS[protocol];
}
