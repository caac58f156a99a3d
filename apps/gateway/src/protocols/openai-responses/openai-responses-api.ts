import { z } from "zod";
import { type IrUsage, tokenCount } from "../ir";
import { isRecord } from "../ir/guards";

/** One `input` item: a message (with or without `type: "message"`) or a typed item. */
const responsesInputItemSchema = z.looseObject({
  type: z.string().nullish(),
  role: z.string().nullish(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish(),
  id: z.string().nullish(),
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  arguments: z.string().nullish(),
  input: z.string().nullish(),
  output: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish(),
  summary: z
    .array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() }))
    .nullish(),
  encrypted_content: z.string().nullish(),
});

/** `POST /v1/responses` body: the fields the hub reads; others are checked by name. */
export const responsesRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(responsesInputItemSchema)]).nullish(),
  instructions: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z
    .looseObject({
      effort: z.string().nullish(),
      summary: z.string().nullish(),
      generate_summary: z.string().nullish(),
    })
    .nullish(),
  include: z.array(z.string()).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  text: z
    .looseObject({
      format: z.looseObject({ type: z.string() }).nullish(),
      verbosity: z.string().nullish(),
    })
    .nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
});

/** Responses usage. */
const responsesUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});

/** One `output` item of a response. */
export const responsesOutputItemSchema = z.looseObject({
  type: z.string(),
  id: z.string().nullish(),
  content: z
    .array(
      z.looseObject({
        type: z.string(),
        text: z.string().nullish(),
        refusal: z.string().nullish(),
      }),
    )
    .nullish(),
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  arguments: z.string().nullish(),
  input: z.string().nullish(),
  summary: z.array(z.looseObject({ text: z.string().nullish() })).nullish(),
  encrypted_content: z.string().nullish(),
});

/** A response object (non-stream body, and inside `response.*` stream events). */
export const responsesResponseSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  status: z.string().nullish(),
  output: z.array(responsesOutputItemSchema).nullish(),
  usage: responsesUsageSchema.nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/** See {@link responsesInputItemSchema}. */
export type ResponsesInputItem = z.infer<typeof responsesInputItemSchema>;
/** See {@link responsesOutputItemSchema}. */
export type ResponsesOutputItem = z.infer<typeof responsesOutputItemSchema>;

/** Hub usage for a Responses `usage` object; null when it carries no counts. */
export function usageFromResponses(usage: unknown): IrUsage | null {
  // Checked first: a failed safeParse builds an error, and most events carry no usage.
  if (!isRecord(usage)) return null;
  const parsed = responsesUsageSchema.safeParse(usage);
  if (!parsed.success) return null;
  const u = parsed.data;
  if (typeof u.input_tokens !== "number" && typeof u.output_tokens !== "number") return null;
  return {
    inputTokens: tokenCount(u.input_tokens),
    outputTokens: tokenCount(u.output_tokens),
    cachedInputTokens: tokenCount(u.input_tokens_details?.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: tokenCount(u.output_tokens_details?.reasoning_tokens),
  };
}

/** The Responses `usage` object for hub usage. */
export function usageToResponses(usage: IrUsage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
