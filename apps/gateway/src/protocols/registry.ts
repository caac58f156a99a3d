import { anthropicMessagesCodec } from "./anthropic-messages/codec";
import type { ClientWire, Codec } from "./codec";
import { geminiCodec } from "./gemini/codec";
import { openAiChatCodec } from "./openai-chat/codec";
import { openAiResponsesCodec } from "./openai-responses/codec";

/**
 * Every codec of the hub, by protocol name. A new protocol is one codec folder plus one line
 * here: its name, its config name, which side speaks it and everything else per protocol follow
 * from the codec. The order is the order the config's protocol values are listed in.
 */
export const CODECS = {
  "anthropic-messages": anthropicMessagesCodec,
  "openai-chat": openAiChatCodec,
  "openai-responses": openAiResponsesCodec,
  gemini: geminiCodec,
} as const;

/** The one name of a wire protocol inside the gateway: a key of {@link CODECS}. */
export type ProtocolName = keyof typeof CODECS;

/** The protocols clients speak to planfirst: those whose codec has a client half. */
export type ClientProtocolName = {
  [Name in ProtocolName]: (typeof CODECS)[Name]["client"] extends null ? never : Name;
}[ProtocolName];

/** The values a connection's `protocol` may have in the config file, one per codec. */
type ConfigProtocolName = (typeof CODECS)[ProtocolName]["configName"];

/** Every protocol name, in registry order. */
export const PROTOCOL_NAMES = Object.keys(CODECS) as readonly ProtocolName[];

/** The protocols clients speak, in registry order. */
export const CLIENT_PROTOCOL_NAMES = PROTOCOL_NAMES.filter(
  (name): name is ClientProtocolName => CODECS[name].client !== null,
);

/** Every config value of `connections[].protocol`, in registry order. */
export const CONFIG_PROTOCOL_NAMES = PROTOCOL_NAMES.map(
  (name): ConfigProtocolName => CODECS[name].configName,
);

const BY_CONFIG_NAME: ReadonlyMap<string, ProtocolName> = new Map(
  PROTOCOL_NAMES.map((name) => [CODECS[name].configName, name]),
);

/** The codec of `protocol`. */
export function codecFor(protocol: ProtocolName): Codec {
  return CODECS[protocol];
}

/** How clients of `protocol` are served (see {@link ClientWire}). */
export function clientWireOf(protocol: ClientProtocolName): ClientWire {
  return CODECS[protocol].client;
}

/** The protocol a config value names (`openai` → `openai-chat`); the config schema admits no other. */
export function protocolOfConfig(configName: ConfigProtocolName): ProtocolName {
  return BY_CONFIG_NAME.get(configName)!;
}

/** The config value naming `protocol`, as operators write it (`openai-chat` → `openai`). */
export function configNameOf(protocol: ProtocolName): ConfigProtocolName {
  return CODECS[protocol].configName;
}
