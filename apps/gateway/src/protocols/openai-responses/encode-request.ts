import type { Encoded, EncodeRequestOptions } from "../codec";
import { refuseField } from "../degrade-policy";
import type { IrImagePart, IrPart, IrRequest, IrTextPart, IrTool } from "../ir";
import { reasoningFieldName, unique } from "../ir/dropped";
import type { Json } from "../ir/guards";
import { openAiEffort } from "../ir/reasoning";

const TARGET = "openai-responses";

/**
 * Writes a Responses API body for a hub request from another protocol; see
 * {@link Codec.encodeRequest}. Sends `store: false` unless the client asked otherwise: the hub
 * needs no server-side state and some Responses servers take nothing else.
 */
export function encodeResponsesRequest(
  ir: IrRequest,
  options: EncodeRequestOptions,
): Encoded<Json> {
  const dropped = [...ir.dropped];
  if (ir.choices !== undefined && ir.choices > 1) throw refuseField("n", "n", TARGET);
  if (ir.stop)
    throw refuseField(
      "stop-unsupported",
      ir.source === "anthropic-messages" ? "stop_sequences" : "stop",
      TARGET,
    );
  if (ir.topK !== undefined) throw refuseField("sampling", "top_k", TARGET);
  const customNames = new Set(ir.tools.filter((t) => t.kind === "custom").map((t) => t.name));
  const input: Json[] = [];
  for (const message of ir.messages) {
    if (message.role === "system") {
      input.push({ type: "message", role: "developer", content: textParts(message.content) });
      continue;
    }
    if (message.role === "assistant") {
      const text: Json[] = [];
      const flush = () => {
        if (text.length > 0)
          input.push({ type: "message", role: "assistant", content: text.splice(0) });
      };
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text !== "") text.push({ type: "output_text", text: part.text });
        } else if (part.type === "tool_call") {
          flush();
          input.push(
            part.kind === "custom"
              ? {
                  type: "custom_tool_call",
                  call_id: part.id,
                  name: part.name,
                  input: part.arguments,
                }
              : {
                  type: "function_call",
                  call_id: part.id,
                  name: part.name,
                  arguments: part.arguments,
                },
          );
        } else if (part.type === "reasoning") dropped.push(reasoningFieldName(ir.source));
      }
      flush();
      continue;
    }
    const content: Json[] = [];
    for (const part of message.content) {
      if (part.type === "tool_result") {
        const text = part.content
          .filter((p): p is IrTextPart => p.type === "text")
          .map((p) => p.text)
          .join("");
        const output = part.isError ? `Error: ${text}` : text;
        input.push(
          part.kind === "custom"
            ? { type: "custom_tool_call_output", call_id: part.callId, output }
            : { type: "function_call_output", call_id: part.callId, output },
        );
        // The tool's images follow as user content, where every Responses server takes them.
        for (const p of part.content) if (p.type === "image") content.push(inputImage(p));
      } else if (part.type === "text") content.push({ type: "input_text", text: part.text });
      else if (part.type === "image") content.push(inputImage(part));
    }
    if (content.length > 0) input.push({ type: "message", role: "user", content });
  }
  const body: Json = { model: options.model, input, store: ir.store ?? false };
  const instructions = ir.system.map((p) => p.text).join("\n\n");
  if (instructions !== "") body.instructions = instructions;
  if (options.stream) body.stream = true;
  if (ir.maxOutputTokens !== undefined) body.max_output_tokens = ir.maxOutputTokens;
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.top_p = ir.topP;
  if (ir.user !== undefined) body.user = ir.user;
  if (ir.metadata) body.metadata = ir.metadata;
  if (options.promptCacheKey !== undefined) body.prompt_cache_key = options.promptCacheKey;
  if (ir.contextManagement !== undefined) dropped.push("context_management");
  const effort = openAiEffort(ir.reasoning);
  if (effort !== undefined) body.reasoning = { effort };
  else if (ir.reasoning?.adaptive) dropped.push("thinking");
  if (ir.responseFormat) {
    const f = ir.responseFormat;
    body.text = {
      format:
        f.type === "json_schema"
          ? {
              type: "json_schema",
              name: f.name ?? "response",
              schema: f.schema,
              ...(f.strict === undefined ? {} : { strict: f.strict }),
            }
          : { type: f.type },
    };
  }
  if (ir.tools.length > 0) {
    body.tools = ir.tools.map(encodeTool);
    const c = ir.toolChoice;
    if (c?.type === "tool")
      body.tool_choice = { type: customNames.has(c.name) ? "custom" : "function", name: c.name };
    else if (c) body.tool_choice = c.type;
    if (ir.parallelToolCalls !== undefined) body.parallel_tool_calls = ir.parallelToolCalls;
  }
  return { body, dropped: unique(dropped) };
}

function textParts(parts: readonly IrPart[]): Json[] {
  return parts.flatMap((p) => (p.type === "text" ? [{ type: "input_text", text: p.text }] : []));
}

function inputImage(part: IrImagePart): Json {
  const url =
    part.source.kind === "base64"
      ? `data:${part.source.mediaType};base64,${part.source.data}`
      : part.source.url;
  return { type: "input_image", image_url: url, detail: part.detail ?? "auto" };
}

function encodeTool(tool: IrTool): Json {
  if (tool.kind === "custom") {
    const out: Json = { type: "custom", name: tool.name };
    if (tool.description !== undefined) out.description = tool.description;
    if (tool.format) out.format = tool.format;
    return out;
  }
  // Responses treats an unmarked function as strict, which rejects ordinary schemas: say false
  // unless the client asked for strict.
  const out: Json = {
    type: "function",
    name: tool.name,
    parameters: tool.parameters,
    strict: tool.strict ?? false,
  };
  if (tool.description !== undefined) out.description = tool.description;
  return out;
}
