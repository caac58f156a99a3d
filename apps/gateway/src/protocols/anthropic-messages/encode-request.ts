import type { Encoded, EncodeRequestOptions } from "../codec";
import { invalidField, refuseField } from "../degrade-policy";
import type { IrImagePart, IrPart, IrRequest, IrTextPart, IrTool } from "../ir";
import { CUSTOM_TOOL_PARAMETERS, customToolDescription } from "../ir/custom-tool";
import { reasoningFieldName, unique } from "../ir/dropped";
import type { Json } from "../ir/guards";
import { budgetFromEffort, effortFromBudget, MIN_THINKING_BUDGET_TOKENS } from "../ir/reasoning";

const TARGET = "anthropic-messages";

/**
 * `max_tokens` sent to an Anthropic upstream when the client set no output limit (Anthropic
 * requires one). Tokens.
 */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Writes a Messages API body for a hub request; see {@link Codec.encodeRequest}. */
export function encodeMessagesRequest(ir: IrRequest, options: EncodeRequestOptions): Encoded<Json> {
  const dropped = [...ir.dropped];
  if (ir.previousResponseId !== undefined)
    throw refuseField("previous-response-id", "previous_response_id", TARGET);
  if (ir.choices !== undefined && ir.choices > 1) throw refuseField("n", "n", TARGET);
  if (ir.responseFormat && ir.responseFormat.type !== "text") {
    throw refuseField(
      "json-schema",
      ir.source === "openai-responses" ? "text.format" : "response_format",
      TARGET,
    );
  }
  const system: string[] = ir.system.map((p) => p.text);
  const turns: { role: "user" | "assistant"; content: Json[] }[] = [];
  ir.messages.forEach((message, i) => {
    if (message.role === "system") {
      // Anthropic takes one system prompt: system turns join it, in order.
      system.push(message.content.map((p) => (p.type === "text" ? p.text : "")).join(""));
      return;
    }
    const blocks = message.content.flatMap((part, j) =>
      encodePart(part, `messages[${i}].content[${j}]`, dropped, ir.source),
    );
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    // Anthropic wants alternating turns: consecutive same-role turns become one.
    if (last && last.role === message.role) last.content.push(...blocks);
    else turns.push({ role: message.role, content: blocks });
  });
  const maxTokens = ir.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  const body: Json = { model: options.model, max_tokens: maxTokens, messages: turns };
  const systemText = system.filter((s) => s !== "").join("\n\n");
  if (systemText !== "") body.system = systemText;
  if (options.stream) body.stream = true;
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.top_p = ir.topP;
  if (ir.topK !== undefined) body.top_k = ir.topK;
  if (ir.stop) body.stop_sequences = ir.stop;
  if (ir.user !== undefined) body.metadata = { user_id: ir.user };
  if (ir.metadata) dropped.push("metadata");
  if (ir.store !== undefined) dropped.push("store");
  if (ir.includeEncryptedReasoning) dropped.push("include");
  if (ir.reasoning?.summary !== undefined) dropped.push("reasoning.summary");
  encodeThinking(ir, body, maxTokens, dropped);
  if (ir.tools.length > 0) {
    body.tools = ir.tools.map((tool, i) => encodeTool(tool, i, dropped));
    let choice: Json | undefined;
    const c = ir.toolChoice;
    if (c?.type === "auto" || c?.type === "none") choice = { type: c.type };
    else if (c?.type === "required") choice = { type: "any" };
    else if (c?.type === "tool") choice = { type: "tool", name: c.name };
    if (ir.parallelToolCalls === false)
      choice = { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true };
    if (choice) body.tool_choice = choice;
  }
  return { body, dropped: unique(dropped) };
}

function effortField(source: IrRequest["source"]): string {
  return source === "openai-responses" ? "reasoning.effort" : "reasoning_effort";
}

/**
 * Effort becomes an extended-thinking budget. It is dropped (and reported) rather than sent when
 * it would make Anthropic refuse the request: below the 1024-token minimum once capped under
 * `max_tokens` (never raised: a bigger `max_tokens` could spend more than the client allowed),
 * with a temperature or top_p or a forced tool choice, which thinking does not allow, or in the
 * middle of a tool loop, where Anthropic wants the last assistant turn to open with a signed
 * thinking block that a conversation from another protocol cannot have.
 */
function encodeThinking(ir: IrRequest, body: Json, maxTokens: number, dropped: string[]): void {
  const r = ir.reasoning;
  if (!r || r.disabled) return;
  const effort = r.effort ?? (r.budgetTokens ? effortFromBudget(r.budgetTokens) : undefined);
  if (effort === undefined || effort === "none") return;
  const budget = Math.min(r.budgetTokens ?? budgetFromEffort(effort), maxTokens - 1);
  const samplingSet =
    (ir.temperature !== undefined && ir.temperature !== 1) || ir.topP !== undefined;
  const forcedTool = ir.toolChoice?.type === "required" || ir.toolChoice?.type === "tool";
  if (budget < MIN_THINKING_BUDGET_TOKENS || samplingSet || forcedTool || midToolLoop(body)) {
    dropped.push(effortField(ir.source));
    return;
  }
  body.thinking = { type: "enabled", budget_tokens: budget };
}

/** True when the conversation ends with tool results answering the last assistant turn. */
function midToolLoop(body: Json): boolean {
  const turns = body.messages as { role: string; content: Json[] }[];
  const last = turns[turns.length - 1];
  return last?.role === "user" && last.content.some((b) => b.type === "tool_result");
}

function encodeTool(tool: IrTool, index: number, dropped: string[]): Json {
  if (tool.kind === "custom") {
    if (tool.format && tool.format.type !== "text") dropped.push(`tools[${index}].format`);
    const out: Json = { name: tool.name, input_schema: CUSTOM_TOOL_PARAMETERS };
    const description = customToolDescription(tool);
    if (description !== undefined) out.description = description;
    return out;
  }
  const out: Json = { name: tool.name, input_schema: tool.parameters };
  if (tool.description !== undefined) out.description = tool.description;
  return out;
}

/** The Anthropic image block for a hub image. */
function anthropicImage(part: IrImagePart): Json {
  return part.source.kind === "base64"
    ? {
        type: "image",
        source: { type: "base64", media_type: part.source.mediaType, data: part.source.data },
      }
    : { type: "image", source: { type: "url", url: part.source.url } };
}

function parseArguments(args: string, field: string): unknown {
  if (args === "") return {};
  try {
    return JSON.parse(args);
  } catch (cause) {
    throw invalidField(field, `tool call arguments are not valid JSON (${String(cause)})`);
  }
}

function encodePart(
  part: IrPart,
  field: string,
  dropped: string[],
  source: IrRequest["source"],
): Json[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "image":
      return [anthropicImage(part)];
    case "tool_call":
      return [
        {
          type: "tool_use",
          id: part.id,
          name: part.name,
          input:
            part.kind === "custom"
              ? { input: part.arguments }
              : parseArguments(part.arguments, `${field}.arguments`),
        },
      ];
    case "tool_result": {
      const onlyText = part.content.every((p) => p.type === "text");
      const content = onlyText
        ? part.content.map((p) => (p as IrTextPart).text).join("")
        : part.content.map((p) =>
            p.type === "text" ? { type: "text", text: p.text } : anthropicImage(p),
          );
      const out: Json = { type: "tool_result", tool_use_id: part.callId, content };
      if (part.isError) out.is_error = true;
      return [out];
    }
    case "reasoning":
      dropped.push(reasoningFieldName(source));
      return [];
  }
}
