import { z } from "zod";

/** Calendar date `YYYY-MM-DD` that exists (2026-02-30 is rejected). */
export const isoDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date written YYYY-MM-DD")
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, "must be a real calendar date");

/** How a connection is paid for. `unknown` is treated as `metered` by every consumer (rule C7). */
export const connectionBillingClassSchema = z.enum([
  "subscription",
  "metered",
  "keyless",
  "unknown",
]);

/** What happens when a plan's quota runs out. `unknown` is treated as `meters-to-paid` (rule C7). */
export const connectionOverageBehaviorSchema = z.enum(["hard-stop", "meters-to-paid", "unknown"]);

/**
 * One curated billing entry. Keyed by (provider, authType); an entry without `authType` is
 * provider-wide and applies to every auth type that has no entry of its own.
 */
export const connectionBillingEntrySchema = z.strictObject({
  provider: z.string().min(1),
  authType: z.string().min(1).optional(),
  billing: connectionBillingClassSchema,
  overage: connectionOverageBehaviorSchema,
  reason: z.string().min(1),
  sources: z.array(z.url()).min(1),
  reviewed: isoDateSchema,
});

/** Price and facts of one model on one metered provider. Prices are USD per 1M tokens. */
export const modelPriceSchema = z.strictObject({
  provider: z.string().min(1),
  model: z.string().min(1),
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cachedInputPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
  free: z.boolean().optional(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  categories: z.array(z.string().regex(/^[a-z][a-z0-9-]*$/)).optional(),
});

/** The connections data file: billing entries plus the date they were last reviewed as a set. */
export const connectionsFileSchema = z.strictObject({
  $schema: z.string().optional(),
  connections: z.array(connectionBillingEntrySchema),
});

/** The models data file: prices plus the date the prices were read from the providers. */
export const modelsFileSchema = z.strictObject({
  $schema: z.string().optional(),
  pricesReadOn: isoDateSchema,
  models: z.array(modelPriceSchema),
});

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
