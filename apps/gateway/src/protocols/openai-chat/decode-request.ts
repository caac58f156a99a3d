import { invalidField, refuseField, unknownField } from "../degrade-policy";
import {
  emptyIrRequest,
  type IrEffort,
  type IrImagePart,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrResponseFormat,
  type IrTextPart,
  type IrTool,
  type IrToolChoice,
} from "../ir";
import { isRecord, type Json } from "../ir/guards";
import { parseWire } from "../wire-parse";
import { type ChatMessage, chatRequestSchema } from "./openai-chat-api";

/** Fields read into the hub. */
const HANDLED = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "stop",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "user",
  "n",
  "reasoning_effort",
  "response_format",
  "metadata",
  "store",
  "modalities",
]);
/** Hints that cannot change the answer: dropped, and reported. */
const DROPPED = new Set([
  "seed",
  "service_tier",
  "prediction",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "verbosity",
  "web_search_options",
]);
/** Controls the other protocols do not have: refused (the answer would differ). */
const SAMPLING = new Set([
  "logprobs",
  "top_logprobs",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
]);
const EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh"]);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Reads a chat completions body into the hub; see {@link Codec.decodeRequest}. */
export function decodeChatRequest(body: unknown): IrRequest {
  const wire = parseWire(chatRequestSchema, body, "not a chat completions request");
  const raw = body as Json;
  const ir = emptyIrRequest("openai-chat", wire.model, wire.stream === true);
  for (const key of Object.keys(raw)) {
    if (raw[key] === undefined || raw[key] === null || HANDLED.has(key)) continue;
    if (DROPPED.has(key)) ir.dropped.push(key);
    else if (SAMPLING.has(key)) {
      if (isNeutral(key, raw[key])) continue;
      throw refuseField("sampling", key);
    } else throw unknownField(key, "the hub");
  }
  if (wire.n !== undefined && wire.n !== null && wire.n !== 1) ir.choices = wire.n;
  if (Array.isArray(raw.modalities) && raw.modalities.some((m) => m !== "text")) {
    throw refuseField("modalities", "modalities");
  }
  if (wire.stream_options?.include_usage === true) ir.includeStreamUsage = true;
  if (wire.stream_options && Object.keys(wire.stream_options).some((k) => k !== "include_usage")) {
    ir.dropped.push("stream_options");
  }
  const maxTokens = wire.max_completion_tokens ?? wire.max_tokens;
  if (typeof maxTokens === "number") ir.maxOutputTokens = maxTokens;
  if (typeof wire.temperature === "number") ir.temperature = wire.temperature;
  if (typeof wire.top_p === "number") ir.topP = wire.top_p;
  if (typeof wire.stop === "string") ir.stop = [wire.stop];
  else if (Array.isArray(wire.stop) && wire.stop.length > 0) ir.stop = wire.stop;
  if (typeof wire.user === "string") ir.user = wire.user;
  if (wire.metadata) ir.metadata = wire.metadata;
  if (typeof raw.store === "boolean") ir.store = raw.store;
  if (typeof wire.reasoning_effort === "string") {
    if (!EFFORTS.has(wire.reasoning_effort)) {
      throw invalidField("reasoning_effort", "is not a known effort", [...EFFORTS]);
    }
    ir.reasoning =
      wire.reasoning_effort === "none"
        ? { disabled: true }
        : { effort: wire.reasoning_effort as IrEffort };
  }
  if (wire.response_format)
    ir.responseFormat = decodeResponseFormat(wire.response_format, "response_format");
  ir.messages = wire.messages.map((m, i) => decodeMessage(m, `messages[${i}]`));
  if (wire.tools) ir.tools = wire.tools.map((t, i) => decodeTool(t, `tools[${i}]`));
  const choice = decodeToolChoice(wire.tool_choice);
  if (choice) ir.toolChoice = choice;
  if (typeof wire.parallel_tool_calls === "boolean")
    ir.parallelToolCalls = wire.parallel_tool_calls;
  return ir;
}

function isNeutral(key: string, value: unknown): boolean {
  if (key === "logprobs") return value === false;
  if (key === "logit_bias") return isRecord(value) && Object.keys(value).length === 0;
  return value === 0;
}

/** Reads an OpenAI `response_format` (chat) or `text.format` (Responses) object. */
export function decodeResponseFormat(format: Json, field: string): IrResponseFormat {
  if (format.type === "text") return { type: "text" };
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "json_schema") {
    // Chat nests the schema under `json_schema`; Responses puts it on the format itself.
    const spec = isRecord(format.json_schema) ? format.json_schema : format;
    if (!isRecord(spec.schema))
      throw invalidField(`${field}.json_schema.schema`, "must be an object");
    const out: IrResponseFormat = { type: "json_schema", schema: spec.schema };
    if (typeof spec.name === "string") out.name = spec.name;
    if (typeof spec.strict === "boolean") out.strict = spec.strict;
    return out;
  }
  throw invalidField(`${field}.type`, "is not a known response format", [
    "text",
    "json_object",
    "json_schema",
  ]);
}

function textOnly(content: ChatMessage["content"], field: string): IrTextPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((p, i) => {
    if (p.type === "text" && typeof p.text === "string") return { type: "text", text: p.text };
    if (p.type === "refusal" && typeof p.refusal === "string")
      return { type: "text", text: p.refusal };
    throw invalidField(`${field}[${i}].type`, "only text parts are allowed here", ["text"]);
  });
}

/** Reads an OpenAI image URL (a data URL or a web URL). */
export function decodeImageUrl(url: string, detail?: unknown): IrImagePart {
  const match = DATA_URL.exec(url);
  const part: IrImagePart = match
    ? { type: "image", source: { kind: "base64", mediaType: match[1] ?? "", data: match[2] ?? "" } }
    : { type: "image", source: { kind: "url", url } };
  if (typeof detail === "string") part.detail = detail;
  return part;
}

function userContent(content: ChatMessage["content"], field: string): IrPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((p, i) => {
    const f = `${field}[${i}]`;
    if (p.type === "text") return { type: "text", text: String(p.text ?? "") };
    if (p.type === "image_url") {
      const image = p.image_url;
      const url = typeof image === "string" ? image : isRecord(image) ? image.url : undefined;
      if (typeof url !== "string") throw invalidField(`${f}.image_url.url`, "must be a string");
      return decodeImageUrl(url, isRecord(image) ? image.detail : undefined);
    }
    throw unknownField(`${f}.type`, "the hub");
  });
}

function decodeMessage(message: ChatMessage, field: string): IrMessage {
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content: textOnly(message.content, `${field}.content`) };
    case "user":
      return { role: "user", content: userContent(message.content, `${field}.content`) };
    case "assistant": {
      const content: IrPart[] = textOnly(message.content, `${field}.content`);
      if (typeof message.refusal === "string" && content.length === 0) {
        content.push({ type: "text", text: message.refusal });
      }
      if (message.function_call !== undefined && message.function_call !== null) {
        throw invalidField(
          `${field}.function_call`,
          "legacy function calls are not translated; use tool_calls",
        );
      }
      (message.tool_calls ?? []).forEach((call, i) => {
        const f = `${field}.tool_calls[${i}]`;
        if (call.type === "custom" && call.custom) {
          content.push({
            type: "tool_call",
            kind: "custom",
            id: call.id ?? "",
            name: call.custom.name ?? "",
            arguments: call.custom.input ?? "",
          });
          return;
        }
        if (!call.function) throw invalidField(f, "must be a function call");
        const args = call.function.arguments;
        content.push({
          type: "tool_call",
          kind: "function",
          id: call.id ?? "",
          name: call.function.name ?? "",
          arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
        });
      });
      return { role: "assistant", content };
    }
    case "tool":
      return {
        role: "user",
        content: [
          {
            type: "tool_result",
            kind: "function",
            callId: message.tool_call_id ?? "",
            content: textOnly(message.content, `${field}.content`),
          },
        ],
      };
    default:
      throw invalidField(`${field}.role`, `unknown role "${message.role}"`, [
        "system",
        "developer",
        "user",
        "assistant",
        "tool",
      ]);
  }
}

function decodeTool(tool: Json, field: string): IrTool {
  if (tool.type === "function" && isRecord(tool.function)) {
    const fn = tool.function;
    const out: IrTool = {
      kind: "function",
      name: String(fn.name ?? ""),
      parameters: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    };
    if (typeof fn.description === "string") out.description = fn.description;
    if (typeof fn.strict === "boolean") out.strict = fn.strict;
    return out;
  }
  if (tool.type === "custom" && isRecord(tool.custom)) {
    const out: IrTool = { kind: "custom", name: String(tool.custom.name ?? "") };
    if (typeof tool.custom.description === "string") out.description = tool.custom.description;
    if (isRecord(tool.custom.format)) out.format = tool.custom.format;
    return out;
  }
  throw refuseField("tool-type", `${field}.type`);
}

function decodeToolChoice(choice: unknown): IrToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  if (isRecord(choice) && choice.type === "function" && isRecord(choice.function)) {
    return { type: "tool", name: String(choice.function.name ?? "") };
  }
  if (isRecord(choice) && choice.type === "custom" && isRecord(choice.custom)) {
    return { type: "tool", name: String(choice.custom.name ?? "") };
  }
  throw invalidField("tool_choice", "is not a recognised tool choice", [
    "auto",
    "none",
    "required",
    '{"type":"function","function":{"name"}}',
  ]);
}
