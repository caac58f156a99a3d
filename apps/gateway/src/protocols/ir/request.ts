import { z } from "zod";

/** Plain text. `cacheHint` is set when the client marked it with a prompt-cache breakpoint. */
export const irTextPartSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
  cacheHint: z.boolean().optional(),
});

/** An image, inline (base64 with its media type) or by URL. */
const irImagePartSchema = z.object({
  type: z.literal("image"),
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("base64"), mediaType: z.string(), data: z.string() }),
    z.object({ kind: z.literal("url"), url: z.string() }),
  ]),
  detail: z.string().optional(),
});

/**
 * Earlier or streamed reasoning. `text` is the visible thinking or summary; `signature`
 * (Anthropic) and `encryptedContent` (Responses) are opaque proofs only their own protocol can
 * take back; `redactedData` is an Anthropic `redacted_thinking` block; `id` the Responses item id.
 */
export const irReasoningPartSchema = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  signature: z.string().optional(),
  encryptedContent: z.string().optional(),
  redactedData: z.string().optional(),
  id: z.string().optional(),
});

/**
 * A tool call by the assistant. `kind: "function"` carries JSON `arguments` text; `kind:
 * "custom"` (Responses freeform tools) carries the raw `input` text in `arguments`.
 */
export const irToolCallPartSchema = z.object({
  type: z.literal("tool_call"),
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  kind: z.enum(["function", "custom"]),
  itemId: z.string().optional(),
});

/** The result of one tool call, sent back by the client. */
const irToolResultPartSchema = z.object({
  type: z.literal("tool_result"),
  callId: z.string(),
  content: z.array(z.union([irTextPartSchema, irImagePartSchema])),
  isError: z.boolean().optional(),
  kind: z.enum(["function", "custom"]),
});

/** Any part of a message. */
const irPartSchema = z.discriminatedUnion("type", [
  irTextPartSchema,
  irImagePartSchema,
  irReasoningPartSchema,
  irToolCallPartSchema,
  irToolResultPartSchema,
]);

/**
 * One conversation turn. `system` turns inside the conversation keep their position (Claude
 * Code sends them mid-conversation; OpenAI calls them system or developer messages).
 */
const irMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.array(irPartSchema),
});

/** A tool the model may call: a JSON-schema function, or a freeform (custom) tool. */
const irToolSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("function"),
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
    cacheHint: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal("custom"),
    name: z.string(),
    description: z.string().optional(),
    /** Responses `format`: `{type:"text"}` or `{type:"grammar", syntax, definition}`. */
    format: z.record(z.string(), z.unknown()).optional(),
  }),
]);

/** Which tool the model must (or must not) call. */
const irToolChoiceSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto") }),
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("required") }),
  z.object({ type: z.literal("tool"), name: z.string() }),
]);

/** Reasoning effort levels understood across protocols. */
const irEffortSchema = z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);

/**
 * Reasoning control: `effort` (OpenAI `reasoning_effort`, Responses `reasoning.effort`,
 * Anthropic `output_config.effort`), `budgetTokens` (Anthropic `thinking.budget_tokens`),
 * `adaptive` (Anthropic `thinking.type: "adaptive"`: the model decides), `disabled`, and the
 * Responses `summary` setting.
 */
const irReasoningSchema = z.object({
  effort: irEffortSchema.optional(),
  budgetTokens: z.number().int().positive().optional(),
  adaptive: z.boolean().optional(),
  disabled: z.boolean().optional(),
  summary: z.string().optional(),
});

/** The output format the answer must follow. */
const irResponseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    name: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
  }),
]);

/**
 * One client request in the hub's shape: what every codec decodes to and encodes from.
 * `dropped` lists the source fields already dropped while decoding (hints with no place in the
 * hub); encoders add their own. Protocol-only state (`previousResponseId`,
 * `includeEncryptedReasoning`, `store`, `contextManagement`) is carried so the own protocol can
 * keep it and the others can drop or refuse it by the degrade policy.
 */
const irRequestSchema = z.object({
  /** The protocol the client spoke: its name in `protocols/registry.ts`. */
  source: z.string().min(1),
  model: z.string(),
  stream: z.boolean(),
  system: z.array(irTextPartSchema),
  messages: z.array(irMessageSchema),
  tools: z.array(irToolSchema),
  toolChoice: irToolChoiceSchema.optional(),
  parallelToolCalls: z.boolean().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().optional(),
  stop: z.array(z.string()).optional(),
  reasoning: irReasoningSchema.optional(),
  responseFormat: irResponseFormatSchema.optional(),
  /** Number of choices asked for (OpenAI chat `n`); absent means one. */
  choices: z.number().int().positive().optional(),
  user: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  /** Client asked for usage in the stream (chat `stream_options.include_usage`). */
  includeStreamUsage: z.boolean().optional(),
  previousResponseId: z.string().optional(),
  includeEncryptedReasoning: z.boolean().optional(),
  store: z.boolean().optional(),
  contextManagement: z.unknown().optional(),
  /** Fields of the source body dropped while decoding, as JSON paths. */
  dropped: z.array(z.string()),
});

/** See {@link irTextPartSchema}. */
export type IrTextPart = z.infer<typeof irTextPartSchema>;
/** See {@link irImagePartSchema}. */
export type IrImagePart = z.infer<typeof irImagePartSchema>;
/** See {@link irReasoningPartSchema}. */
export type IrReasoningPart = z.infer<typeof irReasoningPartSchema>;
/** See {@link irToolCallPartSchema}. */
export type IrToolCallPart = z.infer<typeof irToolCallPartSchema>;
/** See {@link irPartSchema}. */
export type IrPart = z.infer<typeof irPartSchema>;
/** See {@link irMessageSchema}. */
export type IrMessage = z.infer<typeof irMessageSchema>;
/** See {@link irToolSchema}. */
export type IrTool = z.infer<typeof irToolSchema>;
/** See {@link irToolChoiceSchema}. */
export type IrToolChoice = z.infer<typeof irToolChoiceSchema>;
/** See {@link irEffortSchema}. */
export type IrEffort = z.infer<typeof irEffortSchema>;
/** See {@link irReasoningSchema}. */
export type IrReasoning = z.infer<typeof irReasoningSchema>;
/** See {@link irResponseFormatSchema}. */
export type IrResponseFormat = z.infer<typeof irResponseFormatSchema>;
/** See {@link irRequestSchema}. */
export type IrRequest = z.infer<typeof irRequestSchema>;

/** An empty request for `model`, the starting point of decoders. */
export function emptyIrRequest(
  source: IrRequest["source"],
  model: string,
  stream: boolean,
): IrRequest {
  return { source, model, stream, system: [], messages: [], tools: [], dropped: [] };
}
