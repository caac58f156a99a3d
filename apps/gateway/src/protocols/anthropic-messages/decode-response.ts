import type { IrResponse } from "../ir";
import { parseWire } from "../wire-parse";
import { messagesResponseSchema, usageFromAnthropic } from "./anthropic-messages-api";
import { finishFromAnthropic } from "./finish-reason";

/** Reads a non-stream Messages API answer into the hub; see {@link Codec.decodeResponse}. */
export function decodeMessagesResponse(body: unknown): IrResponse {
  const wire = parseWire(
    messagesResponseSchema,
    body,
    "upstream body is not a Messages API answer",
  );
  const content: IrResponse["content"] = [];
  for (const b of wire.content) {
    if (b.type === "text" && typeof b.text === "string")
      content.push({ type: "text", text: b.text });
    else if (b.type === "tool_use") {
      content.push({
        type: "tool_call",
        kind: "function",
        id: String(b.id ?? ""),
        name: String(b.name ?? ""),
        arguments: JSON.stringify(b.input ?? {}),
      });
    } else if (b.type === "thinking") {
      const part: IrResponse["content"][number] = {
        type: "reasoning",
        text: String(b.thinking ?? ""),
      };
      if (typeof b.signature === "string") part.signature = b.signature;
      content.push(part);
    } else if (b.type === "redacted_thinking") {
      content.push({ type: "reasoning", text: "", redactedData: String(b.data ?? "") });
    }
  }
  const out: IrResponse = {
    content,
    finishReason: finishFromAnthropic(wire.stop_reason),
    usage: usageFromAnthropic(wire.usage),
  };
  if (typeof wire.id === "string") out.id = wire.id;
  if (typeof wire.model === "string") out.model = wire.model;
  if (typeof wire.stop_sequence === "string") out.stopSequence = wire.stop_sequence;
  return out;
}
