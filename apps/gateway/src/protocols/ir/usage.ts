import { z } from "zod";

/**
 * Token usage of one response in the hub's one shape. `inputTokens` INCLUDES cached input and
 * cache writes (the OpenAI convention); `reasoningTokens` is the part of `outputTokens` spent on
 * reasoning, 0 when the upstream does not say. All values are token counts.
 */
export const irUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative(),
});

/** See {@link irUsageSchema}. Structurally a superset of the gateway's `NormalizedUsage`. */
export type IrUsage = z.infer<typeof irUsageSchema>;

/** Zero usage. */
export function emptyIrUsage(): IrUsage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/** A token count from an untrusted value: finite and positive, else 0. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
