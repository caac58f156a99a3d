import { isRecord } from "./ir/guards";
import { ProtocolError } from "./protocol-error";
import type { WireProtocol } from "./types";

/**
 * `max_tokens` sent to an Anthropic upstream when an OpenAI client set neither `max_tokens` nor
 * `max_completion_tokens` (Anthropic requires it). Tokens.
 */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

type Json = Record<string, unknown>;

/** Options of {@link toUpstreamRequest}. */
export interface UpstreamRequestOptions {
  /** The concrete upstream model id that replaces the client's (possibly `auto/...`) model. */
  model: string;
  /** Whether the upstream is asked to stream. */
  stream: boolean;
}

function unsupported(field: string, why: string): ProtocolError {
  return new ProtocolError({ code: "unsupported_field", field, message: why });
}

function invalid(field: string, why: string, allowed?: readonly string[]): ProtocolError {
  return new ProtocolError({ code: "invalid_field", field, message: why, allowed });
}

/**
 * The body to send upstream for a client body. Same protocol: a shallow copy with `model`
 * replaced (and, for OpenAI streams, `stream_options.include_usage` so usage arrives). Across
 * protocols: a full translation of messages, system prompt, images, tools, tool calls and
 * results, stop sequences, token limits, sampling and user id. Throws {@link ProtocolError}
 * (`unsupported_field`, naming the field) for anything the other protocol cannot honour that
 * would change the answer; fields that cannot change it are dropped.
 */
export function toUpstreamRequest(
  clientProtocol: WireProtocol,
  upstreamProtocol: WireProtocol,
  body: Json,
  options: UpstreamRequestOptions,
): Json {
  if (clientProtocol === upstreamProtocol) {
    const copy: Json = { ...body, model: options.model };
    if (options.stream) copy.stream = true;
    else if ("stream" in copy) copy.stream = false;
    if (upstreamProtocol === "openai") {
      if (options.stream) {
        const existing = isRecord(body.stream_options) ? body.stream_options : {};
        copy.stream_options = { ...existing, include_usage: true };
      } else {
        delete copy.stream_options;
      }
    }
    return copy;
  }
  return clientProtocol === "openai"
    ? openAiToAnthropic(body, options)
    : anthropicToOpenAi(body, options);
}

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions → Anthropic messages

/** OpenAI fields that cannot change the answer, dropped on the way to Anthropic. */
const OPENAI_DROPPED = new Set([
  "stream_options",
  "metadata",
  "store",
  "seed",
  "service_tier",
  "prediction",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
]);

const OPENAI_HANDLED = new Set([
  "model",
  "messages",
  "stream",
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
  "logprobs",
  "top_logprobs",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "response_format",
  "modalities",
]);

function checkOpenAiNeutralFields(body: Json): void {
  for (const key of Object.keys(body)) {
    if (!OPENAI_HANDLED.has(key) && !OPENAI_DROPPED.has(key) && body[key] !== undefined) {
      throw unsupported(key, "has no Anthropic equivalent and could change the answer");
    }
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw unsupported("n", "Anthropic returns exactly one choice");
  }
  if (body.logprobs === true)
    throw unsupported("logprobs", "Anthropic returns no log probabilities");
  if (typeof body.top_logprobs === "number" && body.top_logprobs > 0) {
    throw unsupported("top_logprobs", "Anthropic returns no log probabilities");
  }
  for (const key of ["frequency_penalty", "presence_penalty"]) {
    const value = body[key];
    if (value !== undefined && value !== null && value !== 0) {
      throw unsupported(key, "Anthropic has no sampling penalties");
    }
  }
  if (isRecord(body.logit_bias) && Object.keys(body.logit_bias).length > 0) {
    throw unsupported("logit_bias", "Anthropic has no logit bias");
  }
  if (isRecord(body.response_format) && body.response_format.type !== "text") {
    throw unsupported("response_format", "Anthropic has no structured-output mode here");
  }
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== "text")) {
    throw unsupported("modalities", "only text output can be served by Anthropic");
  }
}

/** Text of an OpenAI content value that may only hold text (system, developer, tool, assistant). */
function openAiText(content: unknown, field: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(field, "must be a string or an array of parts");
  return content
    .map((part, index) => {
      if (isRecord(part) && part.type === "text" && typeof part.text === "string") return part.text;
      if (isRecord(part) && part.type === "refusal" && typeof part.refusal === "string") {
        return part.refusal;
      }
      throw unsupported(`${field}[${index}].type`, "only text parts are allowed here");
    })
    .join("");
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function openAiImageToAnthropic(part: Json, field: string): Json {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === "string" ? imageUrl : isRecord(imageUrl) ? imageUrl.url : null;
  if (typeof url !== "string") throw invalid(`${field}.image_url.url`, "must be a string");
  const match = DATA_URL.exec(url);
  if (match) {
    return { type: "image", source: { type: "base64", media_type: match[1], data: match[2] } };
  }
  return { type: "image", source: { type: "url", url } };
}

function openAiUserContentToAnthropic(content: unknown, field: string): string | Json[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(field, "must be a string or an array of parts");
  return content.map((part, index) => {
    const partField = `${field}[${index}]`;
    if (!isRecord(part)) throw invalid(partField, "must be an object");
    if (part.type === "text") return { type: "text", text: String(part.text ?? "") };
    if (part.type === "image_url") return openAiImageToAnthropic(part, partField);
    throw unsupported(
      `${partField}.type`,
      `content part "${String(part.type)}" cannot be sent to Anthropic`,
    );
  });
}

function parseToolArguments(args: unknown, field: string): unknown {
  if (args === undefined || args === null || args === "") return {};
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch (cause) {
    throw new ProtocolError({ code: "invalid_field", field, message: "is not valid JSON", cause });
  }
}

interface AnthropicTurn {
  role: "user" | "assistant";
  content: Json[];
}

function asBlocks(content: string | Json[]): Json[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function pushTurn(turns: AnthropicTurn[], role: "user" | "assistant", blocks: Json[]): void {
  const last = turns[turns.length - 1];
  // Anthropic wants alternating turns: consecutive same-role messages (tool results followed by
  // user text, say) become one turn.
  if (last && last.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

function openAiMessagesToAnthropic(messages: unknown): {
  system: string[];
  turns: AnthropicTurn[];
} {
  if (!Array.isArray(messages)) throw invalid("messages", "must be an array");
  const system: string[] = [];
  const turns: AnthropicTurn[] = [];
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (!isRecord(message)) throw invalid(field, "must be an object");
    switch (message.role) {
      case "system":
      case "developer":
        system.push(openAiText(message.content, `${field}.content`));
        return;
      case "user":
        pushTurn(
          turns,
          "user",
          asBlocks(openAiUserContentToAnthropic(message.content, `${field}.content`)),
        );
        return;
      case "assistant": {
        const blocks: Json[] = [];
        const text = openAiText(message.content, `${field}.content`);
        if (text !== "") blocks.push({ type: "text", text });
        if (Array.isArray(message.tool_calls)) {
          message.tool_calls.forEach((call, callIndex) => {
            const callField = `${field}.tool_calls[${callIndex}]`;
            if (!isRecord(call) || !isRecord(call.function))
              throw invalid(callField, "must be a function call");
            blocks.push({
              type: "tool_use",
              id: String(call.id ?? ""),
              name: String(call.function.name ?? ""),
              input: parseToolArguments(call.function.arguments, `${callField}.function.arguments`),
            });
          });
        } else if (message.function_call !== undefined && message.function_call !== null) {
          throw unsupported(
            `${field}.function_call`,
            "legacy function calls are not translated; use tool_calls",
          );
        }
        // Anthropic refuses empty assistant turns; an empty one says nothing to the model.
        if (blocks.length > 0) pushTurn(turns, "assistant", blocks);
        return;
      }
      case "tool":
        pushTurn(turns, "user", [
          {
            type: "tool_result",
            tool_use_id: String(message.tool_call_id ?? ""),
            content: openAiText(message.content, `${field}.content`),
          },
        ]);
        return;
      default:
        throw invalid(`${field}.role`, `unknown role "${String(message.role)}"`, [
          "system",
          "developer",
          "user",
          "assistant",
          "tool",
        ]);
    }
  });
  return { system, turns };
}

function openAiToolsToAnthropic(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw invalid("tools", "must be an array");
  return tools.map((tool, index) => {
    const field = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(tool.function)) {
      throw unsupported(`${field}.type`, "only function tools can be sent to Anthropic");
    }
    const out: Json = {
      name: tool.function.name,
      input_schema: isRecord(tool.function.parameters)
        ? tool.function.parameters
        : { type: "object", properties: {} },
    };
    if (typeof tool.function.description === "string") out.description = tool.function.description;
    return out;
  });
}

function openAiToolChoiceToAnthropic(choice: unknown, parallel: unknown): Json | undefined {
  let out: Json | undefined;
  if (choice === undefined || choice === null) out = undefined;
  else if (choice === "auto") out = { type: "auto" };
  else if (choice === "none") out = { type: "none" };
  else if (choice === "required") out = { type: "any" };
  else if (isRecord(choice) && choice.type === "function" && isRecord(choice.function)) {
    out = { type: "tool", name: choice.function.name };
  } else {
    throw invalid("tool_choice", "is not a recognised tool choice", [
      "auto",
      "none",
      "required",
      '{"type":"function","function":{"name"}}',
    ]);
  }
  if (parallel === false) {
    out = { ...(out ?? { type: "auto" }), disable_parallel_tool_use: true };
  }
  return out;
}

function openAiToAnthropic(body: Json, options: UpstreamRequestOptions): Json {
  checkOpenAiNeutralFields(body);
  const { system, turns } = openAiMessagesToAnthropic(body.messages);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const out: Json = {
    model: options.model,
    max_tokens: typeof maxTokens === "number" ? maxTokens : DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: turns,
  };
  if (system.length > 0) out.system = system.join("\n\n");
  if (options.stream) out.stream = true;
  if (body.temperature !== undefined && body.temperature !== null)
    out.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) out.top_p = body.top_p;
  if (typeof body.stop === "string") out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) out.stop_sequences = body.stop;
  if (body.tools !== undefined && body.tools !== null) {
    const tools = openAiToolsToAnthropic(body.tools);
    if (tools.length > 0) out.tools = tools;
  }
  const toolChoice = openAiToolChoiceToAnthropic(body.tool_choice, body.parallel_tool_calls);
  if (toolChoice && out.tools) out.tool_choice = toolChoice;
  if (typeof body.user === "string") out.metadata = { user_id: body.user };
  return out;
}

// ---------------------------------------------------------------------------------------------
// Anthropic messages → OpenAI chat completions

/** Anthropic fields that cannot change the answer, dropped on the way to OpenAI. */
const ANTHROPIC_DROPPED = new Set(["service_tier", "cache_control"]);

const ANTHROPIC_HANDLED = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "metadata",
  "thinking",
]);

function anthropicText(content: unknown, field: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(field, "must be a string or an array of blocks");
  return content
    .map((block, index) => {
      if (isRecord(block) && block.type === "text" && typeof block.text === "string")
        return block.text;
      throw unsupported(`${field}[${index}].type`, "only text blocks are allowed here");
    })
    .join("");
}

function anthropicImageToOpenAi(block: Json, field: string): Json {
  const source = block.source;
  if (isRecord(source) && source.type === "base64") {
    return {
      type: "image_url",
      image_url: { url: `data:${source.media_type};base64,${source.data}` },
    };
  }
  if (isRecord(source) && source.type === "url") {
    return { type: "image_url", image_url: { url: source.url } };
  }
  throw unsupported(`${field}.source.type`, "only base64 and url images can be sent to OpenAI");
}

function anthropicMessagesToOpenAi(messages: unknown): Json[] {
  if (!Array.isArray(messages)) throw invalid("messages", "must be an array");
  const out: Json[] = [];
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (!isRecord(message)) throw invalid(field, "must be an object");
    const content = message.content;
    if (message.role === "user") {
      if (typeof content === "string") {
        out.push({ role: "user", content });
        return;
      }
      if (!Array.isArray(content))
        throw invalid(`${field}.content`, "must be a string or an array");
      const parts: Json[] = [];
      content.forEach((block, blockIndex) => {
        const blockField = `${field}.content[${blockIndex}]`;
        if (!isRecord(block)) throw invalid(blockField, "must be an object");
        if (block.type === "text") parts.push({ type: "text", text: block.text });
        else if (block.type === "image") parts.push(anthropicImageToOpenAi(block, blockField));
        else if (block.type === "tool_result") {
          // OpenAI tool messages answer the assistant's calls and must come right after them.
          const result =
            block.content === undefined
              ? ""
              : anthropicText(block.content, `${blockField}.content`);
          out.push({ role: "tool", tool_call_id: block.tool_use_id, content: result });
        } else {
          throw unsupported(
            `${blockField}.type`,
            `block "${String(block.type)}" cannot be sent to OpenAI`,
          );
        }
      });
      if (parts.length > 0) {
        const onlyText = parts.every((p) => p.type === "text");
        out.push({
          role: "user",
          content: onlyText ? parts.map((p) => p.text).join("") : parts,
        });
      }
      return;
    }
    if (message.role === "assistant") {
      if (typeof content === "string") {
        out.push({ role: "assistant", content });
        return;
      }
      if (!Array.isArray(content))
        throw invalid(`${field}.content`, "must be a string or an array");
      let text = "";
      const toolCalls: Json[] = [];
      content.forEach((block, blockIndex) => {
        const blockField = `${field}.content[${blockIndex}]`;
        if (!isRecord(block)) throw invalid(blockField, "must be an object");
        if (block.type === "text") text += String(block.text ?? "");
        else if (block.type === "tool_use") {
          toolCalls.push({
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
          });
        } else if (block.type === "thinking" || block.type === "redacted_thinking") {
          // Earlier reasoning is context for Anthropic only; OpenAI-shaped servers cannot take it.
        } else {
          throw unsupported(
            `${blockField}.type`,
            `block "${String(block.type)}" cannot be sent to OpenAI`,
          );
        }
      });
      const assistant: Json = { role: "assistant", content: text === "" ? null : text };
      if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
      out.push(assistant);
      return;
    }
    throw invalid(`${field}.role`, `unknown role "${String(message.role)}"`, ["user", "assistant"]);
  });
  return out;
}

function anthropicToolsToOpenAi(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw invalid("tools", "must be an array");
  return tools.map((tool, index) => {
    const field = `tools[${index}]`;
    if (!isRecord(tool)) throw invalid(field, "must be an object");
    if (tool.type !== undefined && tool.type !== "custom") {
      throw unsupported(`${field}.type`, `server tool "${String(tool.type)}" cannot run on OpenAI`);
    }
    const fn: Json = {
      name: tool.name,
      parameters: tool.input_schema ?? { type: "object", properties: {} },
    };
    if (typeof tool.description === "string") fn.description = tool.description;
    return { type: "function", function: fn };
  });
}

function anthropicToolChoiceToOpenAi(choice: unknown, out: Json): void {
  if (choice === undefined || choice === null) return;
  if (!isRecord(choice))
    throw invalid("tool_choice", "must be an object", ["auto", "any", "tool", "none"]);
  if (choice.type === "auto") out.tool_choice = "auto";
  else if (choice.type === "any") out.tool_choice = "required";
  else if (choice.type === "none") out.tool_choice = "none";
  else if (choice.type === "tool")
    out.tool_choice = { type: "function", function: { name: choice.name } };
  else
    throw invalid("tool_choice.type", "is not a recognised tool choice", [
      "auto",
      "any",
      "tool",
      "none",
    ]);
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
}

function anthropicToOpenAi(body: Json, options: UpstreamRequestOptions): Json {
  for (const key of Object.keys(body)) {
    if (!ANTHROPIC_HANDLED.has(key) && !ANTHROPIC_DROPPED.has(key) && body[key] !== undefined) {
      throw unsupported(key, "has no OpenAI equivalent and could change the answer");
    }
  }
  if (isRecord(body.thinking) && body.thinking.type !== "disabled") {
    throw unsupported(
      "thinking",
      "extended thinking cannot be carried to an OpenAI-protocol upstream",
    );
  }
  const messages: Json[] = [];
  if (body.system !== undefined && body.system !== null) {
    const system = anthropicText(body.system, "system");
    if (system !== "") messages.push({ role: "system", content: system });
  }
  messages.push(...anthropicMessagesToOpenAi(body.messages));
  const out: Json = { model: options.model, messages };
  if (typeof body.max_tokens === "number") out.max_tokens = body.max_tokens;
  if (options.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  if (body.temperature !== undefined && body.temperature !== null)
    out.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) out.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0)
    out.stop = body.stop_sequences;
  if (body.tools !== undefined && body.tools !== null) {
    const tools = anthropicToolsToOpenAi(body.tools);
    if (tools.length > 0) {
      out.tools = tools;
      anthropicToolChoiceToOpenAi(body.tool_choice, out);
    }
  }
  if (isRecord(body.metadata) && typeof body.metadata.user_id === "string")
    out.user = body.metadata.user_id;
  return out;
}
