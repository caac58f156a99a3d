import { z } from "zod";
import { connectionBillingEntrySchema, modelPriceSchema } from "./schema";

/**
 * A whole catalog: connection billing entries and model prices. Missing lists read as empty, so an
 * operator's partial catalog (only `models`, say) validates with the same schema.
 */
export const catalogSchema = z
  .strictObject({
    connections: z.array(connectionBillingEntrySchema).default([]),
    models: z.array(modelPriceSchema).default([]),
  })
  .describe("A catalog: connection billing entries and model prices.");

/** A whole catalog: connection billing entries and model prices (USD per 1M tokens). */
export type Catalog = z.output<typeof catalogSchema>;

/** Lookup key of a connection entry: provider and authType, lowercased; no authType is `""`. */
export function connectionEntryKey(entry: { provider: string; authType?: string | null }): string {
  return `${entry.provider.toLowerCase()}\u0000${(entry.authType ?? "").toLowerCase()}`;
}

/** Lookup key of a model price: provider and model, lowercased. */
export function modelPriceKey(price: { provider: string; model: string }): string {
  return `${price.provider.toLowerCase()}\u0000${price.model.toLowerCase()}`;
}
