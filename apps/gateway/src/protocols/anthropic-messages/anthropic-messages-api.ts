import { z } from "zod";
import { type IrUsage, tokenCount } from "../ir";
import { isRecord } from "../ir/guards";

const block = z.looseObject({ type: z.string() });

/** A Messages API message; `system` is accepted inside `messages` (Claude Code sends it there). */
const messagesMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(block)]),
});

/** `POST /v1/messages` body: the fields the hub reads; others are checked by name. */
export const messagesRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(messagesMessageSchema),
  system: z.union([z.string(), z.array(block)]).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().nullish(),
  tools: z
    .array(z.looseObject({ name: z.string().nullish(), type: z.string().nullish() }))
    .nullish(),
  tool_choice: z
    .looseObject({
      type: z.string(),
      name: z.string().nullish(),
      disable_parallel_tool_use: z.boolean().nullish(),
    })
    .nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  thinking: z
    .looseObject({ type: z.string(), budget_tokens: z.number().int().nullish() })
    .nullish(),
  output_config: z
    .looseObject({
      effort: z.string().nullish(),
      format: z.looseObject({ type: z.string() }).nullish(),
    })
    .nullish(),
  context_management: z.unknown().optional(),
});

/** Messages API usage. */
const messagesUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

/** A non-stream Messages API answer. */
export const messagesResponseSchema = z.looseObject({
  id: z.string().nullish(),
  type: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(block),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: messagesUsageSchema.nullish(),
});

/** See {@link messagesRequestSchema}. */
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/** Anthropic usage counters, merged as the stream reports them (later counts overwrite earlier ones). */
export type RawAnthropicUsage = Partial<
  Record<
    "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens",
    number
  >
>;

/** Merges one `usage` object into the running counters. */
export function mergeAnthropicUsage(into: RawAnthropicUsage, usage: unknown): void {
  if (!isRecord(usage)) return;
  for (const key of [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ] as const) {
    const value = usage[key];
    if (typeof value === "number") into[key] = value;
  }
}

/** Hub usage for Anthropic counters: input includes cache reads and writes. Null without counts. */
export function usageFromAnthropic(usage: unknown): IrUsage | null {
  if (!isRecord(usage)) return null;
  if (typeof usage.input_tokens !== "number" && typeof usage.output_tokens !== "number")
    return null;
  const cachedInputTokens = tokenCount(usage.cache_read_input_tokens);
  const cacheWriteTokens = tokenCount(usage.cache_creation_input_tokens);
  return {
    inputTokens: tokenCount(usage.input_tokens) + cachedInputTokens + cacheWriteTokens,
    outputTokens: tokenCount(usage.output_tokens),
    cachedInputTokens,
    cacheWriteTokens,
    reasoningTokens: 0,
  };
}

/** The Anthropic `usage` object for hub usage (`input_tokens` excludes cache reads and writes). */
export function usageToAnthropic(usage: IrUsage): Record<string, number> {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
  };
}
