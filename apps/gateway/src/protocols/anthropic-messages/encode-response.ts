import type { Encoded, EncodeResponseOptions } from "../codec";
import { emptyIrUsage, type IrResponse } from "../ir";
import type { Json } from "../ir/guards";
import { usageToAnthropic } from "./anthropic-messages-api";
import { finishToAnthropic } from "./finish-reason";

/** Anthropic message id for an upstream id, so one answer keeps one id: `chatcmpl-abc` → `msg_abc`. */
export function anthropicMessageId(upstreamId: string | undefined): string {
  const raw = upstreamId && upstreamId !== "" ? upstreamId : "planfirst";
  return raw.startsWith("msg_") ? raw : `msg_${raw.replace(/^(chatcmpl-|resp_)/, "")}`;
}

/**
 * Writes a Messages API answer for a hub answer from another protocol. Reasoning is not
 * written: a thinking block without Anthropic's signature would make Anthropic refuse the
 * conversation when the client sends it back to an Anthropic upstream later.
 */
export function encodeMessagesResponse(
  ir: IrResponse,
  options: EncodeResponseOptions,
): Encoded<Json> {
  const content: Json[] = [];
  const dropped: string[] = [];
  for (const part of ir.content) {
    if (part.type === "text") {
      if (part.text !== "") content.push({ type: "text", text: part.text });
    } else if (part.type === "tool_call") {
      content.push({
        type: "tool_use",
        id: part.id,
        name: part.name,
        input: toolInput(part.arguments, part.kind),
      });
    } else if (part.signature !== undefined) {
      content.push({ type: "thinking", thinking: part.text, signature: part.signature });
    } else if (part.redactedData !== undefined) {
      content.push({ type: "redacted_thinking", data: part.redactedData });
    } else dropped.push("reasoning");
  }
  const body: Json = {
    id: anthropicMessageId(ir.id),
    type: "message",
    role: "assistant",
    model: options.model,
    content,
    stop_reason: finishToAnthropic(ir.finishReason),
    stop_sequence: ir.stopSequence ?? null,
    usage: usageToAnthropic(ir.usage ?? emptyIrUsage()),
  };
  return { body, dropped: [...new Set(dropped)] };
}

/** A tool_use `input` for call arguments: JSON as an object; malformed JSON kept raw. */
function toolInput(args: string, kind: "function" | "custom"): unknown {
  if (kind === "custom") return { input: args };
  if (args === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    // A model can emit malformed arguments; the client still gets them, as a raw string.
    return { _raw_arguments: args };
  }
}
