import { anthropicMessageId, anthropicToolUseId, openAiCompletionId } from "./ids";
import { isRecord } from "./ir/guards";
import { ProtocolError } from "./protocol-error";
import { anthropicStopReason, openAiFinishReason } from "./stop-reason";
import type { NormalizedUsage, WireProtocol } from "./types";
import { emptyUsage, extractUsage, toAnthropicUsage, toOpenAiUsage } from "./usage";

type Json = Record<string, unknown>;

/** Options of {@link toClientResponse}. */
export interface ClientResponseOptions {
  /** The concrete model that served the request, shown to the client. */
  model: string;
  /** Clock for the OpenAI `created` field, epoch milliseconds; defaults to `Date.now()`. */
  nowMs?: number;
}

/** A client-shaped body and the usage it reports (null when the upstream sent none). */
export interface ClientResponse {
  body: Json;
  usage: NormalizedUsage | null;
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== "string" || args === "") return isRecord(args) ? args : {};
  try {
    return JSON.parse(args);
  } catch {
    // A model can emit malformed arguments; the client still gets them, as a raw string.
    return { _raw_arguments: args };
  }
}

/**
 * Turns a non-stream upstream body into the client's shape: same protocol keeps the body and
 * replaces `model`; across protocols it maps text, tool calls, stop reasons (end_turn and
 * stop_sequence ↔ stop, max_tokens ↔ length, tool_use ↔ tool_calls), usage (cached input ↔
 * `cache_read_input_tokens`) and ids. Throws {@link ProtocolError} (`invalid_field`) when the
 * body is not a completion of `upstreamProtocol`.
 */
export function toClientResponse(
  upstreamProtocol: WireProtocol,
  clientProtocol: WireProtocol,
  upstreamBody: unknown,
  options: ClientResponseOptions,
): ClientResponse {
  if (!isRecord(upstreamBody)) {
    throw new ProtocolError({
      code: "invalid_field",
      field: "body",
      message: "upstream response is not a JSON object",
    });
  }
  const usage = extractUsage(upstreamProtocol, upstreamBody);
  if (upstreamProtocol === clientProtocol) {
    return { body: { ...upstreamBody, model: options.model }, usage };
  }
  const body =
    upstreamProtocol === "openai"
      ? openAiToAnthropicBody(upstreamBody, usage, options)
      : anthropicToOpenAiBody(upstreamBody, usage, options);
  return { body, usage };
}

function openAiToAnthropicBody(
  body: Json,
  usage: NormalizedUsage | null,
  options: ClientResponseOptions,
): Json {
  const choices = Array.isArray(body.choices) ? body.choices : [];
  const choice = choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw new ProtocolError({
      code: "invalid_field",
      field: "choices[0].message",
      message: "upstream completion has no message",
    });
  }
  const message = choice.message;
  const content: Json[] = [];
  const text =
    typeof message.content === "string"
      ? message.content
      : typeof message.refusal === "string"
        ? message.refusal
        : "";
  if (text !== "") content.push({ type: "text", text });
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, index) => {
      if (!isRecord(call) || !isRecord(call.function)) return;
      content.push({
        type: "tool_use",
        id: anthropicToolUseId(call.id, index),
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      });
    });
  }
  return {
    id: anthropicMessageId(body.id),
    type: "message",
    role: "assistant",
    model: options.model,
    content,
    stop_reason: anthropicStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: toAnthropicUsage(usage ?? emptyUsage()),
  };
}

function anthropicToOpenAiBody(
  body: Json,
  usage: NormalizedUsage | null,
  options: ClientResponseOptions,
): Json {
  const blocks = Array.isArray(body.content) ? body.content : [];
  let text = "";
  const toolCalls: Json[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: Json = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const out: Json = {
    id: openAiCompletionId(body.id),
    object: "chat.completion",
    created: Math.floor((options.nowMs ?? Date.now()) / 1000),
    model: options.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: openAiFinishReason(body.stop_reason) },
    ],
  };
  if (usage) out.usage = toOpenAiUsage(usage);
  return out;
}
