import { invalidField, refuseField, unknownField } from "../degrade-policy";
import {
  emptyIrRequest,
  type IrEffort,
  type IrMessage,
  type IrPart,
  type IrRequest,
  type IrTextPart,
  type IrTool,
} from "../ir";
import { isRecord, type Json } from "../ir/guards";
import { decodeImageUrl, decodeResponseFormat } from "../openai-chat/decode-request";
import { parseWire } from "../wire-parse";
import { decodeCallItem } from "./decode-call-item";
import { type ResponsesInputItem, responsesRequestSchema } from "./openai-responses-api";

const HANDLED = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "include",
  "store",
  "previous_response_id",
  "stream",
  "max_output_tokens",
  "temperature",
  "top_p",
  "text",
  "metadata",
  "user",
]);
/** Hints and bookkeeping that cannot change the answer. */
const DROPPED = new Set([
  "prompt_cache_key",
  "prompt_cache_retention",
  "service_tier",
  "safety_identifier",
  "stream_options",
  "truncation",
  "client_metadata",
]);
const EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh"]);
/** `include` values that only change what the response carries, not the answer. */
const INCLUDES = new Set([
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
  "web_search_call.action.sources",
]);

/**
 * Reads a Responses API body into the hub; see {@link Codec.decodeRequest}. Keeps
 * `previous_response_id`, `store` and `include: [reasoning.encrypted_content]` on the request
 * so that only a Responses upstream gets them and the others refuse or drop them by the policy.
 */
export function decodeResponsesRequest(body: unknown): IrRequest {
  const wire = parseWire(responsesRequestSchema, body, "not a Responses API request");
  const raw = body as Json;
  const ir = emptyIrRequest("openai-responses", wire.model, wire.stream === true);
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (value === undefined || value === null || HANDLED.has(key)) continue;
    if (DROPPED.has(key)) ir.dropped.push(key);
    else if (key === "background" && value === false) continue;
    else if (
      (key === "top_logprobs" && value === 0) ||
      (key === "max_tool_calls" && value === null)
    )
      continue;
    else if (key === "conversation") throw refuseField("previous-response-id", key);
    else if (key === "top_logprobs") throw refuseField("sampling", key);
    else throw unknownField(key, "the hub");
  }
  if (typeof wire.previous_response_id === "string")
    ir.previousResponseId = wire.previous_response_id;
  if (typeof wire.store === "boolean") ir.store = wire.store;
  for (const [i, value] of (wire.include ?? []).entries()) {
    if (!INCLUDES.has(value))
      throw invalidField(`include[${i}]`, "is not an include the hub can honour", [...INCLUDES]);
    if (value === "reasoning.encrypted_content") ir.includeEncryptedReasoning = true;
  }
  if (typeof wire.max_output_tokens === "number") ir.maxOutputTokens = wire.max_output_tokens;
  if (typeof wire.temperature === "number") ir.temperature = wire.temperature;
  if (typeof wire.top_p === "number") ir.topP = wire.top_p;
  if (typeof wire.user === "string") ir.user = wire.user;
  if (wire.metadata) ir.metadata = wire.metadata;
  const reasoning = wire.reasoning;
  if (reasoning) {
    const effort = reasoning.effort;
    if (typeof effort === "string" && !EFFORTS.has(effort)) {
      throw invalidField("reasoning.effort", "is not a known effort", [...EFFORTS]);
    }
    ir.reasoning = effort === "none" ? { disabled: true } : {};
    if (typeof effort === "string" && effort !== "none") ir.reasoning.effort = effort as IrEffort;
    const summary = reasoning.summary ?? reasoning.generate_summary;
    if (typeof summary === "string") ir.reasoning.summary = summary;
  }
  if (wire.text?.format) ir.responseFormat = decodeResponseFormat(wire.text.format, "text.format");
  if (typeof wire.text?.verbosity === "string") ir.dropped.push("text.verbosity");
  if (typeof wire.instructions === "string" && wire.instructions !== "") {
    ir.system = [{ type: "text", text: wire.instructions }];
  }
  const input = wire.input ?? [];
  ir.messages =
    typeof input === "string"
      ? [{ role: "user", content: [{ type: "text", text: input }] }]
      : decodeItems(input);
  if (wire.tools) {
    wire.tools.forEach((t, i) => {
      const field = `tools[${i}]`;
      if (OFFERED_ONLY_TOOLS.has(String(t.type))) ir.dropped.push(`${field} (${String(t.type)})`);
      else ir.tools.push(decodeTool(t, field));
    });
  }
  decodeToolChoice(wire.tool_choice, ir);
  if (typeof wire.parallel_tool_calls === "boolean")
    ir.parallelToolCalls = wire.parallel_tool_calls;
  return ir;
}

function decodeContent(content: ResponsesInputItem["content"], field: string): IrPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((p, i) => {
    const f = `${field}[${i}]`;
    if (p.type === "input_text" || p.type === "output_text" || p.type === "text")
      return { type: "text", text: String(p.text ?? "") };
    if (p.type === "refusal") return { type: "text", text: String(p.refusal ?? "") };
    if (p.type === "input_image") {
      if (typeof p.image_url !== "string") {
        throw invalidField(
          `${f}.image_url`,
          "only image URLs and data URLs can be carried to another protocol (not file ids)",
        );
      }
      return decodeImageUrl(p.image_url, p.detail);
    }
    throw unknownField(`${f}.type`, "the hub");
  });
}

function outputParts(output: ResponsesInputItem["output"], field: string): IrTextPart[] {
  if (output === null || output === undefined) return [];
  if (typeof output === "string") return [{ type: "text", text: output }];
  return decodeContent(output, field).map((p) =>
    p.type === "text" ? p : { type: "text", text: "" },
  );
}

/** Items in order; consecutive items of one role join one hub message. */
function decodeItems(items: readonly ResponsesInputItem[]): IrMessage[] {
  const messages: IrMessage[] = [];
  const add = (role: IrMessage["role"], parts: IrPart[]) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role && role !== "system") last.content.push(...parts);
    else messages.push({ role, content: parts });
  };
  items.forEach((item, i) => {
    const field = `input[${i}]`;
    const type = item.type ?? "message";
    switch (type) {
      case "message": {
        const role = item.role;
        const parts = decodeContent(item.content, `${field}.content`);
        if (role === "system" || role === "developer") add("system", parts);
        else if (role === "user" || role === "assistant") add(role, parts);
        else
          throw invalidField(`${field}.role`, `unknown role "${String(role)}"`, [
            "user",
            "assistant",
            "system",
            "developer",
          ]);
        return;
      }
      case "function_call":
      case "custom_tool_call":
        add("assistant", [decodeCallItem(item)]);
        return;
      case "function_call_output":
      case "custom_tool_call_output":
        add("user", [
          {
            type: "tool_result",
            kind: type === "custom_tool_call_output" ? "custom" : "function",
            callId: item.call_id ?? "",
            content: outputParts(item.output, `${field}.output`),
          },
        ]);
        return;
      case "reasoning": {
        const part: IrPart = {
          type: "reasoning",
          text: (item.summary ?? []).map((s) => s.text ?? "").join("\n\n"),
        };
        if (typeof item.encrypted_content === "string")
          part.encryptedContent = item.encrypted_content;
        if (typeof item.id === "string") part.id = item.id;
        add("assistant", [part]);
        return;
      }
      case "item_reference":
        throw refuseField("previous-response-id", `${field}.type`);
      default:
        // Built-in tool calls (web_search_call, local_shell_call, …) ran on a Responses server.
        throw refuseField("tool-type", `${field}.type`);
    }
  });
  return messages;
}

/**
 * Tools a Responses client offers but never needs for an answer: the hosted web search and
 * Codex's namespaced tool groups (sub-agents). Another protocol has neither, so they are dropped
 * with a receipt (`degrade-policy` "offered-tool"); a `tool_choice` forcing one is still refused.
 */
const OFFERED_ONLY_TOOLS = new Set(["web_search", "web_search_preview", "namespace"]);

function decodeTool(tool: Json, field: string): IrTool {
  if (tool.type === "function") {
    const out: IrTool = {
      kind: "function",
      name: String(tool.name ?? ""),
      parameters: isRecord(tool.parameters) ? tool.parameters : { type: "object", properties: {} },
    };
    if (typeof tool.description === "string") out.description = tool.description;
    if (typeof tool.strict === "boolean") out.strict = tool.strict;
    return out;
  }
  if (tool.type === "custom") {
    const out: IrTool = { kind: "custom", name: String(tool.name ?? "") };
    if (typeof tool.description === "string") out.description = tool.description;
    if (isRecord(tool.format)) out.format = tool.format;
    return out;
  }
  throw refuseField("tool-type", `${field}.type`);
}

function decodeToolChoice(choice: unknown, ir: IrRequest): void {
  if (choice === undefined || choice === null) return;
  if (choice === "auto" || choice === "none" || choice === "required") {
    ir.toolChoice = { type: choice };
    return;
  }
  if (
    isRecord(choice) &&
    (choice.type === "function" || choice.type === "custom") &&
    typeof choice.name === "string"
  ) {
    ir.toolChoice = { type: "tool", name: choice.name };
    return;
  }
  throw invalidField("tool_choice", "is not a tool choice the hub can carry", [
    "auto",
    "none",
    "required",
    '{"type":"function","name"}',
    '{"type":"custom","name"}',
  ]);
}
