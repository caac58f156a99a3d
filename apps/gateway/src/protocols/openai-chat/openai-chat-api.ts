import { z } from "zod";
import { type IrUsage, tokenCount } from "../ir";
import { isRecord } from "../ir/guards";

const part = z.looseObject({ type: z.string() });

/** A chat message as clients and compatible servers send it (roles checked by the decoder). */
const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(part)]).nullish(),
  name: z.string().nullish(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().nullish(),
        type: z.string().nullish(),
        function: z
          .looseObject({ name: z.string().nullish(), arguments: z.unknown().optional() })
          .nullish(),
        custom: z
          .looseObject({ name: z.string().nullish(), input: z.string().nullish() })
          .nullish(),
      }),
    )
    .nullish(),
  tool_call_id: z.string().nullish(),
  refusal: z.string().nullish(),
  function_call: z.unknown().optional(),
});

/** `POST /v1/chat/completions` body: the fields the hub reads; others are checked by name. */
export const chatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(chatMessageSchema),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  user: z.string().nullish(),
  n: z.number().int().nullish(),
  reasoning_effort: z.string().nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/**
 * Chat usage, tolerant of servers that omit the details. Read only for its counts, so other
 * fields are dropped from the parsed value (`z.object`): zod then checks the known fields
 * without walking the unknown ones (`total_tokens` and the rest).
 */
const chatUsageSchema = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});

/** See {@link chatUsageSchema}. */
type ChatUsage = z.infer<typeof chatUsageSchema>;

/** A non-stream chat completion. */
export const chatResponseSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        message: chatMessageSchema.extend({ reasoning_content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: chatUsageSchema.nullish(),
});

/**
 * One streamed chat chunk (`choices` may be empty on the usage chunk). Parsed for every chunk
 * the relay tracks (a finish, usage, an error) and every chunk a translation reads, and read
 * only for the fields below: the others are dropped from the parsed value (`z.object` rather
 * than `z.looseObject`, which walks each unknown field: `object`, `created`,
 * `system_fingerprint`, `logprobs`…), half the time of a parse.
 */
export const chatChunkSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().nullish(),
                  id: z.string().nullish(),
                  type: z.string().nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                  custom: z
                    .object({ name: z.string().nullish(), input: z.string().nullish() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: chatUsageSchema.nullish(),
  error: z.unknown().optional(),
});

/** See {@link chatMessageSchema}. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Hub usage for a chat `usage` object; null when it carries no counts. */
export function usageFromChat(usage: unknown): IrUsage | null {
  // Most stream chunks carry no usage: checked first, since a failed safeParse builds an error.
  if (!isRecord(usage)) return null;
  const parsed = chatUsageSchema.safeParse(usage);
  return parsed.success ? usageFromParsedChat(parsed.data) : null;
}

/** {@link usageFromChat} for usage parsed already (as part of a {@link chatChunkSchema} chunk). */
export function usageFromParsedChat(u: ChatUsage | null | undefined): IrUsage | null {
  if (!u) return null;
  if (typeof u.prompt_tokens !== "number" && typeof u.completion_tokens !== "number") return null;
  return {
    inputTokens: tokenCount(u.prompt_tokens),
    outputTokens: tokenCount(u.completion_tokens),
    cachedInputTokens: tokenCount(u.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: tokenCount(u.completion_tokens_details?.reasoning_tokens),
  };
}

/** The chat `usage` object for hub usage. */
export function usageToChat(usage: IrUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
