import { invalidField, refuseField, unknownField } from "../degrade-policy";
import {
  emptyIrRequest,
  type IrEffort,
  type IrImagePart,
  type IrMessage,
  type IrPart,
  type IrReasoning,
  type IrRequest,
  type IrTextPart,
  type IrTool,
} from "../ir";
import { isRecord, type Json } from "../ir/guards";
import { parseWire } from "../wire-parse";
import { type MessagesRequest, messagesRequestSchema } from "./anthropic-messages-api";

const HANDLED = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "tools",
  "tool_choice",
  "metadata",
  "thinking",
  "output_config",
  "context_management",
]);
const DROPPED = new Set(["service_tier", "cache_control", "container"]);
const EFFORTS = new Set(["low", "medium", "high", "max"]);

/**
 * Reads a Messages API body into the hub; see {@link Codec.decodeRequest}. Takes Claude Code's
 * real requests: `system` as a string or blocks, `system` turns inside `messages`,
 * `cache_control` anywhere, thinking and redacted thinking blocks, `thinking` adaptive or with a
 * budget, `output_config.effort` and `context_management`.
 */
export function decodeMessagesRequest(body: unknown): IrRequest {
  const wire = parseWire(messagesRequestSchema, body, "not a Messages API request");
  const raw = body as Json;
  const ir = emptyIrRequest("anthropic-messages", wire.model, wire.stream === true);
  for (const key of Object.keys(raw)) {
    if (raw[key] === undefined || raw[key] === null || HANDLED.has(key)) continue;
    if (DROPPED.has(key)) ir.dropped.push(key);
    else throw unknownField(key, "the hub");
  }
  if (typeof wire.max_tokens === "number") ir.maxOutputTokens = wire.max_tokens;
  if (typeof wire.temperature === "number") ir.temperature = wire.temperature;
  if (typeof wire.top_p === "number") ir.topP = wire.top_p;
  if (typeof wire.top_k === "number") ir.topK = wire.top_k;
  if (wire.stop_sequences && wire.stop_sequences.length > 0) ir.stop = wire.stop_sequences;
  if (typeof wire.metadata?.user_id === "string") ir.user = wire.metadata.user_id;
  if (wire.context_management !== undefined && wire.context_management !== null)
    ir.contextManagement = wire.context_management;
  const reasoning = decodeReasoning(wire);
  if (reasoning) ir.reasoning = reasoning;
  const format = wire.output_config?.format;
  if (format) {
    if (format.type !== "json_schema" || !isRecord(format.schema)) {
      throw invalidField("output_config.format.type", "is not a known output format", [
        "json_schema",
      ]);
    }
    ir.responseFormat = { type: "json_schema", schema: format.schema };
  }
  if (wire.output_config) {
    for (const key of Object.keys(wire.output_config)) {
      if (key !== "effort" && key !== "format")
        throw unknownField(`output_config.${key}`, "the hub");
    }
  }
  // Prompt-cache breakpoints may sit on any block; every other protocol drops them.
  if (hasCacheControl(raw.system) || hasCacheControl(raw.messages) || hasCacheControl(raw.tools)) {
    ir.dropped.push("cache_control");
  }
  if (wire.system !== undefined && wire.system !== null)
    ir.system = textBlocks(wire.system, "system");
  ir.messages = wire.messages.map((m, i) => decodeMessage(m.role, m.content, `messages[${i}]`));
  if (wire.tools) ir.tools = wire.tools.map((t, i) => decodeTool(t as Json, `tools[${i}]`));
  const choice = wire.tool_choice;
  if (choice) {
    if (choice.type === "auto" || choice.type === "none") ir.toolChoice = { type: choice.type };
    else if (choice.type === "any") ir.toolChoice = { type: "required" };
    else if (choice.type === "tool") ir.toolChoice = { type: "tool", name: choice.name ?? "" };
    else
      throw invalidField("tool_choice.type", "is not a recognised tool choice", [
        "auto",
        "any",
        "tool",
        "none",
      ]);
    if (choice.disable_parallel_tool_use === true) ir.parallelToolCalls = false;
  }
  return ir;
}

function decodeReasoning(wire: MessagesRequest): IrReasoning | undefined {
  const out: IrReasoning = {};
  const thinking = wire.thinking;
  if (thinking) {
    if (thinking.type === "enabled") {
      if (typeof thinking.budget_tokens !== "number" || thinking.budget_tokens <= 0) {
        throw invalidField("thinking.budget_tokens", "is required when thinking is enabled");
      }
      out.budgetTokens = thinking.budget_tokens;
    } else if (thinking.type === "adaptive") out.adaptive = true;
    else if (thinking.type === "disabled") out.disabled = true;
    else
      throw invalidField("thinking.type", "is not a known thinking mode", [
        "enabled",
        "adaptive",
        "disabled",
      ]);
  }
  const effort = wire.output_config?.effort;
  if (typeof effort === "string") {
    if (!EFFORTS.has(effort))
      throw invalidField("output_config.effort", "is not a known effort", [...EFFORTS]);
    out.effort = effort as IrEffort;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function cacheHinted(block: Json): boolean {
  return isRecord(block.cache_control);
}

function textBlocks(content: string | Json[], field: string): IrTextPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((b, i) => {
    if (b.type !== "text" || typeof b.text !== "string") {
      throw invalidField(`${field}[${i}].type`, "only text blocks are allowed here", ["text"]);
    }
    const part: IrTextPart = { type: "text", text: b.text };
    if (cacheHinted(b)) part.cacheHint = true;
    return part;
  });
}

/** Reads an Anthropic image block (base64 or URL); file ids are refused. */
function decodeImageBlock(b: Json, field: string): IrImagePart {
  const source = isRecord(b.source) ? b.source : {};
  if (source.type === "base64") {
    return {
      type: "image",
      source: {
        kind: "base64",
        mediaType: String(source.media_type ?? ""),
        data: String(source.data ?? ""),
      },
    };
  }
  if (source.type === "url" && typeof source.url === "string")
    return { type: "image", source: { kind: "url", url: source.url } };
  throw invalidField(
    `${field}.source.type`,
    "only base64 and url images can be carried to another protocol",
    ["base64", "url"],
  );
}

function decodeBlock(b: Json, field: string): IrPart {
  switch (b.type) {
    case "text": {
      const part: IrTextPart = { type: "text", text: String(b.text ?? "") };
      if (cacheHinted(b)) part.cacheHint = true;
      return part;
    }
    case "image":
      return decodeImageBlock(b, field);
    case "tool_use":
      return {
        type: "tool_call",
        kind: "function",
        id: String(b.id ?? ""),
        name: String(b.name ?? ""),
        arguments: JSON.stringify(b.input ?? {}),
      };
    case "tool_result": {
      const content = b.content;
      const parts =
        content === undefined || content === null
          ? []
          : typeof content === "string"
            ? [{ type: "text" as const, text: content }]
            : Array.isArray(content)
              ? content.map((c, i) => {
                  const f = `${field}.content[${i}]`;
                  if (!isRecord(c)) throw invalidField(f, "must be an object");
                  if (c.type === "text")
                    return { type: "text" as const, text: String(c.text ?? "") };
                  if (c.type === "image") return decodeImageBlock(c, f);
                  throw unknownField(`${f}.type`, "the hub");
                })
              : [];
      const part: IrPart = {
        type: "tool_result",
        kind: "function",
        callId: String(b.tool_use_id ?? ""),
        content: parts,
      };
      if (b.is_error === true) part.isError = true;
      return part;
    }
    case "thinking": {
      const part: IrPart = { type: "reasoning", text: String(b.thinking ?? "") };
      if (typeof b.signature === "string") part.signature = b.signature;
      return part;
    }
    case "redacted_thinking":
      return { type: "reasoning", text: "", redactedData: String(b.data ?? "") };
    default:
      // Server tool blocks (server_tool_use, web_search_tool_result…) run on Anthropic's side only.
      if (typeof b.type === "string" && b.type.includes("tool"))
        throw refuseField("tool-type", `${field}.type`);
      throw unknownField(`${field}.type`, "the hub");
  }
}

function decodeMessage(role: string, content: string | Json[], field: string): IrMessage {
  if (role === "system")
    return { role: "system", content: textBlocks(content, `${field}.content`) };
  if (role !== "user" && role !== "assistant") {
    throw invalidField(`${field}.role`, `unknown role "${role}"`, ["user", "assistant", "system"]);
  }
  if (typeof content === "string") return { role, content: [{ type: "text", text: content }] };
  return { role, content: content.map((b, i) => decodeBlock(b, `${field}.content[${i}]`)) };
}

function decodeTool(tool: Json, field: string): IrTool {
  if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
    throw refuseField("tool-type", `${field}.type`);
  }
  const out: IrTool = {
    kind: "function",
    name: String(tool.name ?? ""),
    parameters: isRecord(tool.input_schema)
      ? tool.input_schema
      : { type: "object", properties: {} },
  };
  if (typeof tool.description === "string") out.description = tool.description;
  if (typeof tool.strict === "boolean") out.strict = tool.strict;
  if (cacheHinted(tool)) out.cacheHint = true;
  return out;
}

function hasCacheControl(value: unknown, depth = 0): boolean {
  if (depth > 6) return false;
  if (Array.isArray(value)) return value.some((v) => hasCacheControl(v, depth + 1));
  if (!isRecord(value)) return false;
  if (isRecord(value.cache_control)) return true;
  return Array.isArray(value.content) && hasCacheControl(value.content, depth + 1);
}
