import { invalidField } from "../degrade-policy";
import type { IrResponse } from "../ir";
import { parseWire } from "../wire-parse";
import { decodeCallItem } from "./decode-call-item";
import { finishFromResponses } from "./finish-reason";
import {
  type ResponsesOutputItem,
  responsesResponseSchema,
  usageFromResponses,
} from "./openai-responses-api";

/** The hub content of Responses output items (message text, reasoning, function and custom calls). */
function contentFromOutput(output: readonly ResponsesOutputItem[]): IrResponse["content"] {
  const content: IrResponse["content"] = [];
  for (const item of output) {
    if (item.type === "message") {
      const text = (item.content ?? [])
        .map((c) => (c.type === "refusal" ? (c.refusal ?? "") : (c.text ?? "")))
        .join("");
      if (text !== "") content.push({ type: "text", text });
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      content.push(decodeCallItem(item));
    } else if (item.type === "reasoning") {
      const part: IrResponse["content"][number] = {
        type: "reasoning",
        text: (item.summary ?? []).map((s) => s.text ?? "").join("\n\n"),
      };
      if (typeof item.encrypted_content === "string")
        part.encryptedContent = item.encrypted_content;
      if (typeof item.id === "string") part.id = item.id;
      content.push(part);
    }
  }
  return content;
}

/** Reads a non-stream Responses API answer into the hub; see {@link Codec.decodeResponse}. */
export function decodeResponsesResponse(body: unknown): IrResponse {
  const wire = parseWire(
    responsesResponseSchema,
    body,
    "upstream body is not a Responses API answer",
  );
  if (wire.status === "failed") {
    throw invalidField(
      "error",
      `upstream response failed: ${wire.error?.message ?? "no reason given"}`,
    );
  }
  const content = contentFromOutput(wire.output ?? []);
  const sawToolCall = content.some((p) => p.type === "tool_call");
  const out: IrResponse = {
    content,
    finishReason: finishFromResponses(wire.status, wire.incomplete_details?.reason, sawToolCall),
    usage: usageFromResponses(wire.usage),
  };
  if (typeof wire.id === "string") out.id = wire.id;
  if (typeof wire.model === "string") out.model = wire.model;
  return out;
}
