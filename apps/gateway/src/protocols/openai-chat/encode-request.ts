import type { Encoded, EncodeRequestOptions } from "../codec";
import { refuseField } from "../degrade-policy";
import type { IrImagePart, IrMessage, IrPart, IrRequest, IrTextPart, IrTool } from "../ir";
import { CUSTOM_TOOL_PARAMETERS, customToolDescription, wrapCustomInput } from "../ir/custom-tool";
import { reasoningFieldName, unique } from "../ir/dropped";
import type { Json } from "../ir/guards";
import { openAiEffort } from "../ir/reasoning";

const TARGET = "openai-chat";

/** Writes a chat completions body for a hub request; see {@link Codec.encodeRequest}. */
export function encodeChatRequest(ir: IrRequest, options: EncodeRequestOptions): Encoded<Json> {
  const dropped = [...ir.dropped];
  if (ir.previousResponseId !== undefined)
    throw refuseField("previous-response-id", "previous_response_id", TARGET);
  const messages: Json[] = [];
  const system = joinText(ir.system);
  if (system !== "") messages.push({ role: "system", content: system });
  if (ir.system.some((p) => p.cacheHint)) dropped.push("cache_control");
  for (const message of ir.messages) encodeMessage(message, messages, dropped, ir.source);
  const body: Json = { model: options.model, messages };
  if (options.stream) {
    body.stream = true;
    // Usage must arrive in the stream, or the ledger could not settle what was spent.
    body.stream_options = { include_usage: true };
  }
  // `max_tokens`, not `max_completion_tokens`: every chat-compatible server reads it.
  if (ir.maxOutputTokens !== undefined) body.max_tokens = ir.maxOutputTokens;
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.top_p = ir.topP;
  if (ir.topK !== undefined) throw refuseField("sampling", "top_k", TARGET);
  if (ir.stop) body.stop = ir.stop;
  if (ir.choices !== undefined) body.n = ir.choices;
  if (ir.user !== undefined) body.user = ir.user;
  if (ir.metadata && ir.source !== "anthropic-messages") body.metadata = ir.metadata;
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  if (ir.store !== undefined) dropped.push("store");
  const effort = openAiEffort(ir.reasoning);
  if (effort !== undefined) body.reasoning_effort = effort;
  else if (ir.reasoning?.adaptive) dropped.push("thinking");
  if (ir.reasoning?.summary !== undefined) dropped.push("reasoning.summary");
  if (ir.includeEncryptedReasoning) dropped.push("include");
  if (ir.contextManagement !== undefined) dropped.push("context_management");
  if (ir.responseFormat) {
    const f = ir.responseFormat;
    body.response_format =
      f.type === "json_schema"
        ? {
            type: "json_schema",
            json_schema: {
              name: f.name ?? "response",
              schema: f.schema,
              ...(f.strict === undefined ? {} : { strict: f.strict }),
            },
          }
        : { type: f.type };
  }
  if (ir.tools.length > 0) {
    body.tools = ir.tools.map((tool, i) => encodeTool(tool, i, dropped));
    if (ir.toolChoice) {
      const c = ir.toolChoice;
      body.tool_choice =
        c.type === "tool" ? { type: "function", function: { name: c.name } } : c.type;
    }
    if (ir.parallelToolCalls !== undefined) body.parallel_tool_calls = ir.parallelToolCalls;
  }
  return { body, dropped: unique(dropped) };
}

function joinText(parts: readonly IrTextPart[]): string {
  return parts.map((p) => p.text).join("\n\n");
}

function encodeTool(tool: IrTool, index: number, dropped: string[]): Json {
  if (tool.kind === "custom") {
    if (tool.format && tool.format.type !== "text") dropped.push(`tools[${index}].format`);
    const fn: Json = { name: tool.name, parameters: CUSTOM_TOOL_PARAMETERS };
    const description = customToolDescription(tool);
    if (description !== undefined) fn.description = description;
    return { type: "function", function: fn };
  }
  if (tool.cacheHint) dropped.push("cache_control");
  const fn: Json = { name: tool.name, parameters: tool.parameters };
  if (tool.description !== undefined) fn.description = tool.description;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: "function", function: fn };
}

function imageUrl(part: IrImagePart): Json {
  const url =
    part.source.kind === "base64"
      ? `data:${part.source.mediaType};base64,${part.source.data}`
      : part.source.url;
  return { type: "image_url", image_url: part.detail ? { url, detail: part.detail } : { url } };
}

function encodeMessage(
  message: IrMessage,
  out: Json[],
  dropped: string[],
  source: IrRequest["source"],
): void {
  if (message.content.some((p) => (p.type === "text" && p.cacheHint) === true))
    dropped.push("cache_control");
  if (message.role === "system") {
    out.push({
      role: "system",
      content: joinText(message.content.filter((p): p is IrTextPart => p.type === "text")),
    });
    return;
  }
  if (message.role === "assistant") {
    let text = "";
    const toolCalls: Json[] = [];
    for (const part of message.content) {
      if (part.type === "text") text += part.text;
      else if (part.type === "tool_call") {
        const args = part.kind === "custom" ? wrapCustomInput(part.arguments) : part.arguments;
        toolCalls.push({
          id: part.id,
          type: "function",
          function: { name: part.name, arguments: args },
        });
      } else if (part.type === "reasoning") dropped.push(reasoningFieldName(source));
    }
    if (text === "" && toolCalls.length === 0) return;
    const assistant: Json = { role: "assistant", content: text === "" ? null : text };
    if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
    out.push(assistant);
    return;
  }
  // User turn: tool results become tool messages (which must follow the assistant's calls),
  // then the rest of the turn is one user message.
  const parts: IrPart[] = [];
  for (const part of message.content) {
    if (part.type !== "tool_result") {
      parts.push(part);
      continue;
    }
    const text = part.content
      .filter((p): p is IrTextPart => p.type === "text")
      .map((p) => p.text)
      .join("");
    const images = part.content.filter((p): p is IrImagePart => p.type === "image");
    const prefix = part.isError ? "Error: " : "";
    out.push({ role: "tool", tool_call_id: part.callId, content: `${prefix}${text}` });
    // Chat tool messages hold text only: the tool's images follow as a user message.
    parts.push(...images);
  }
  const content = parts.flatMap((p): Json[] => {
    if (p.type === "text") return [{ type: "text", text: p.text }];
    if (p.type === "image") return [imageUrl(p)];
    return [];
  });
  if (content.length === 0) return;
  const onlyText = content.every((p) => p.type === "text");
  out.push({ role: "user", content: onlyText ? content.map((p) => p.text).join("") : content });
}
