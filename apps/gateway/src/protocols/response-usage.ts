import { usageFromAnthropic } from "./anthropic-messages/anthropic-messages-api";
import type { ProtocolName } from "./codec";
import type { IrUsage } from "./ir";
import { isRecord } from "./ir/guards";
import { usageFromChat } from "./openai-chat/openai-chat-api";
import { usageFromResponses } from "./openai-responses/openai-responses-api";

/**
 * The usage of a non-stream answer in `protocol`'s shape, read without decoding the rest (the
 * same-protocol pass-through keeps the body as it came); null when it reports none.
 */
export function responseUsage(protocol: ProtocolName, body: unknown): IrUsage | null {
  if (!isRecord(body)) return null;
  if (protocol === "anthropic-messages") return usageFromAnthropic(body.usage);
  if (protocol === "openai-responses") return usageFromResponses(body.usage);
  return usageFromChat(body.usage);
}
