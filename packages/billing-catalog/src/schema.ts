import { z } from "zod";

/** Calendar date `YYYY-MM-DD` that exists (2026-02-30 is rejected). */
export const isoDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date written YYYY-MM-DD", abort: true })
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, "must be a real calendar date");

/** How a connection is paid for. `unknown` is treated as `metered` by every consumer (rule C7). */
export const connectionBillingClassSchema = z
  .enum(["subscription", "metered", "keyless", "unknown"])
  .describe("How the connection is paid for. `unknown` is treated as `metered` (rule C7).");

/** What happens when a plan's quota runs out. `unknown` is treated as `meters-to-paid` (rule C7). */
export const connectionOverageBehaviorSchema = z
  .enum(["hard-stop", "meters-to-paid", "unknown"])
  .describe(
    "What happens when the plan's quota runs out. `unknown` is treated as `meters-to-paid` (rule C7).",
  );

const pricePerMTokSchema = z.number().nonnegative();

/**
 * One curated billing entry. Keyed by (provider, authType); an entry without `authType` is
 * provider-wide and applies to every auth type that has no entry of its own.
 */
export const connectionBillingEntrySchema = z
  .strictObject({
    provider: z.string().min(1).describe("Canonical provider id, e.g. `claude`, `openrouter`."),
    authType: z
      .string()
      .min(1)
      .optional()
      .describe("Auth type this entry applies to; absent means every auth type of the provider."),
    billing: connectionBillingClassSchema,
    overage: connectionOverageBehaviorSchema,
    reason: z.string().min(1).describe("Why this classification, citing the provider's terms."),
    sources: z
      .array(z.url())
      .min(1)
      .describe("URLs of the provider's published terms or pricing pages."),
    reviewed: isoDateSchema.describe("Date (YYYY-MM-DD) the sources were last checked."),
  })
  .describe("Billing of one (provider, authType) connection kind.");

/** Price and facts of one model on one metered provider. Prices are USD per 1M tokens. */
export const modelPriceSchema = z
  .strictObject({
    provider: z.string().min(1).describe("Canonical provider id serving the model."),
    model: z.string().min(1).describe("Model id exactly as the provider's API takes it."),
    inputPerMTok: pricePerMTokSchema.describe("USD per 1M uncached input tokens."),
    outputPerMTok: pricePerMTokSchema.describe("USD per 1M output tokens (reasoning included)."),
    cachedInputPerMTok: pricePerMTokSchema
      .optional()
      .describe("USD per 1M input tokens read from the prompt cache."),
    cacheWritePerMTok: pricePerMTokSchema
      .optional()
      .describe("USD per 1M input tokens written to the prompt cache (shortest cache lifetime)."),
    free: z.boolean().optional().describe("True when the model is offered at no charge."),
    contextWindow: z.number().int().positive().optional().describe("Context window in tokens."),
    maxOutputTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Largest output per request in tokens."),
    categories: z
      .array(z.string().regex(/^[a-z][a-z0-9-]*$/))
      .optional()
      .describe("Lowercase tags such as `coding`, `reasoning`, `vision`, `fast`."),
  })
  .describe("Price of one model on one provider, USD per 1M tokens.");

/** The connections data file: the curated billing entries. */
export const connectionsFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    connections: z.array(connectionBillingEntrySchema),
  })
  .describe("Connection billing entries (data/connections.json).");

/**
 * The models data file: prices plus the date they were read from the providers, and per provider
 * the pricing pages they were read from.
 */
export const modelsFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    pricesReadOn: isoDateSchema.describe("Date (YYYY-MM-DD) the prices were read."),
    sources: z
      .record(z.string().min(1), z.array(z.url()).min(1))
      .optional()
      .describe("Pricing pages the prices were read from, per provider id."),
    models: z.array(modelPriceSchema),
  })
  .describe("Model prices (data/models.json).");

/** How a connection is paid for. */
export type ConnectionBillingClass = z.infer<typeof connectionBillingClassSchema>;
/** What happens when a plan's quota runs out. */
export type ConnectionOverageBehavior = z.infer<typeof connectionOverageBehaviorSchema>;
/** One curated billing entry, keyed by (provider, authType). */
export type ConnectionBillingEntry = z.infer<typeof connectionBillingEntrySchema>;
/** Price and facts of one model on one provider (USD per 1M tokens). */
export type ModelPrice = z.infer<typeof modelPriceSchema>;
/** Parsed connections data file. */
export type ConnectionsFile = z.infer<typeof connectionsFileSchema>;
/** Parsed models data file. */
export type ModelsFile = z.infer<typeof modelsFileSchema>;
