import type { Encoded, EncodeResponseOptions } from "../codec";
import type { IrResponse } from "../ir";
import type { Json } from "../ir/guards";
import { finishToChat } from "./finish-reason";
import { usageToChat } from "./openai-chat-api";

/** Chat completion id for an upstream id, so one answer keeps one id: `msg_abc` → `chatcmpl-abc`. */
export function chatCompletionId(upstreamId: string | undefined): string {
  const raw = upstreamId && upstreamId !== "" ? upstreamId : "planfirst";
  return raw.startsWith("chatcmpl-") ? raw : `chatcmpl-${raw.replace(/^(msg_|resp_)/, "")}`;
}

/** Writes a chat completion for a hub answer; see {@link Codec.encodeResponse}. */
export function encodeChatResponse(ir: IrResponse, options: EncodeResponseOptions): Encoded<Json> {
  let text = "";
  let reasoning = "";
  const toolCalls: Json[] = [];
  for (const part of ir.content) {
    if (part.type === "text") text += part.text;
    else if (part.type === "reasoning") reasoning += part.text;
    else if (part.kind === "custom") {
      toolCalls.push({
        id: part.id,
        type: "custom",
        custom: { name: part.name, input: part.arguments },
      });
    } else {
      toolCalls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments },
      });
    }
  }
  const message: Json = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: Json = {
    id: chatCompletionId(ir.id),
    object: "chat.completion",
    created: Math.floor(options.nowMs / 1000),
    model: options.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishToChat(ir.finishReason) }],
  };
  if (ir.usage) body.usage = usageToChat(ir.usage);
  return { body, dropped: [] };
}
