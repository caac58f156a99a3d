import type { IrResponse } from "../ir";
import { parseWire } from "../wire-parse";
import { finishFromChat } from "./finish-reason";
import { chatResponseSchema, usageFromChat } from "./openai-chat-api";

/** Reads a non-stream chat completion into the hub; see {@link Codec.decodeResponse}. */
export function decodeChatResponse(body: unknown): IrResponse {
  const wire = parseWire(chatResponseSchema, body, "upstream body is not a chat completion");
  // Validated non-empty by the schema.
  const choice = wire.choices[0]!;
  const message = choice.message;
  const content: IrResponse["content"] = [];
  const reasoning = message.reasoning_content;
  if (typeof reasoning === "string" && reasoning !== "")
    content.push({ type: "reasoning", text: reasoning });
  const text = typeof message.content === "string" ? message.content : (message.refusal ?? "");
  if (text !== "") content.push({ type: "text", text });
  (message.tool_calls ?? []).forEach((call, i) => {
    const id = call.id ?? `call_planfirst_${i}`;
    if (call.type === "custom" && call.custom) {
      content.push({
        type: "tool_call",
        kind: "custom",
        id,
        name: call.custom.name ?? "",
        arguments: call.custom.input ?? "",
      });
    } else if (call.function) {
      const args = call.function.arguments;
      content.push({
        type: "tool_call",
        kind: "function",
        id,
        name: call.function.name ?? "",
        arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      });
    }
  });
  const out: IrResponse = {
    content,
    finishReason: finishFromChat(choice.finish_reason),
    usage: usageFromChat(wire.usage),
  };
  if (typeof wire.id === "string") out.id = wire.id;
  if (typeof wire.model === "string") out.model = wire.model;
  return out;
}
