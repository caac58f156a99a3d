import { isRecord } from "./ir/guards";
import type { NormalizedUsage, WireProtocol } from "./types";

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Reads the usage object of an OpenAI body (`usage.prompt_tokens`, `completion_tokens`,
 * `prompt_tokens_details.cached_tokens`); null when there is none.
 */
export function usageFromOpenAi(usage: unknown): NormalizedUsage | null {
  if (!isRecord(usage)) return null;
  if (typeof usage.prompt_tokens !== "number" && typeof usage.completion_tokens !== "number") {
    return null;
  }
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cachedInputTokens: count(details.cached_tokens),
    cacheWriteTokens: 0,
  };
}

/**
 * Reads the usage object of an Anthropic body; `inputTokens` is the sum of `input_tokens`,
 * `cache_read_input_tokens` and `cache_creation_input_tokens`. Null when there is none.
 */
export function usageFromAnthropic(usage: unknown): NormalizedUsage | null {
  if (!isRecord(usage)) return null;
  if (typeof usage.input_tokens !== "number" && typeof usage.output_tokens !== "number") {
    return null;
  }
  const cachedInputTokens = count(usage.cache_read_input_tokens);
  const cacheWriteTokens = count(usage.cache_creation_input_tokens);
  return {
    inputTokens: count(usage.input_tokens) + cachedInputTokens + cacheWriteTokens,
    outputTokens: count(usage.output_tokens),
    cachedInputTokens,
    cacheWriteTokens,
  };
}

/**
 * Usage of a non-stream response body in `protocol`'s shape, normalised (input includes cached
 * input). Null when the body carries no usage.
 */
export function extractUsage(protocol: WireProtocol, body: unknown): NormalizedUsage | null {
  if (!isRecord(body)) return null;
  return protocol === "openai" ? usageFromOpenAi(body.usage) : usageFromAnthropic(body.usage);
}

/** The OpenAI `usage` object for normalised usage. */
export function toOpenAiUsage(usage: NormalizedUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
  };
}

/** The Anthropic `usage` object for normalised usage (`input_tokens` excludes cache reads and writes). */
export function toAnthropicUsage(usage: NormalizedUsage): Record<string, unknown> {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
  };
}

/** Zero usage, the starting point of stream accounting. */
export function emptyUsage(): NormalizedUsage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 };
}
