import type { ModelPrice } from "@planfirst/billing-catalog";
import { invalidArgument, requireNonNegativeInteger } from "./errors";
import { type MicroUsd, usdToMicro } from "./money";

/**
 * Tokens of one request as the gateway normalises them. `inputTokens` counts EVERY prompt token,
 * cached reads and cache writes included (OpenAI's `prompt_tokens` convention); the gateway adds
 * Anthropic's separately reported `cache_read_input_tokens` and `cache_creation_input_tokens` to
 * `input_tokens` before calling {@link costOf}.
 */
export interface TokenUsage {
  /** All prompt tokens, including `cachedInputTokens` and `cacheWriteTokens`. */
  inputTokens: number;
  /** Completion tokens, reasoning tokens included. */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (part of `inputTokens`). Default 0. */
  cachedInputTokens?: number;
  /** Prompt tokens written to the provider's cache (part of `inputTokens`). Default 0. */
  cacheWriteTokens?: number;
}

/** The price fields {@link costOf} reads from a catalog `ModelPrice` (USD per 1M tokens). */
export type TokenPrice = Pick<
  ModelPrice,
  "inputPerMTok" | "outputPerMTok" | "cachedInputPerMTok" | "cacheWritePerMTok"
>;

// A price in micro-USD per MTok times a token count is micro-USD × 10^6.
const tokensPerMTok = 1_000_000;

/**
 * Cost of one request in integer micro-USD, exact: each price is held as integer micro-USD per
 * million tokens (a price with more than six decimals per MTok is rounded up), the four token
 * classes are multiplied and summed in integers, and the request total is rounded UP to the
 * micro-dollar once, so rounding never undercounts and summing any number of costs never drifts.
 *
 * Cached reads are priced at `cachedInputPerMTok` and cache writes at `cacheWritePerMTok`; a price
 * the catalog lacks falls back to `inputPerMTok`. Uncached input is
 * `inputTokens − cachedInputTokens − cacheWriteTokens`.
 *
 * @throws SpendLedgerError `invalid_argument` for negative or fractional token counts, or when
 *   cached plus cache-write tokens exceed `inputTokens`
 */
export function costOf(usage: TokenUsage, price: TokenPrice): MicroUsd {
  const input = requireNonNegativeInteger("usage.inputTokens", usage.inputTokens);
  const output = requireNonNegativeInteger("usage.outputTokens", usage.outputTokens);
  const cached = requireNonNegativeInteger("usage.cachedInputTokens", usage.cachedInputTokens ?? 0);
  const written = requireNonNegativeInteger("usage.cacheWriteTokens", usage.cacheWriteTokens ?? 0);
  const uncached = input - cached - written;
  if (uncached < 0) {
    invalidArgument(
      "usage.cachedInputTokens",
      "at most inputTokens − cacheWriteTokens (cached tokens are part of inputTokens)",
      cached,
    );
  }
  const inputPrice = usdToMicro(price.inputPerMTok);
  const terms: Array<[number, number]> = [
    [uncached, inputPrice],
    [output, usdToMicro(price.outputPerMTok)],
    [
      cached,
      price.cachedInputPerMTok === undefined ? inputPrice : usdToMicro(price.cachedInputPerMTok),
    ],
    [
      written,
      price.cacheWritePerMTok === undefined ? inputPrice : usdToMicro(price.cacheWritePerMTok),
    ],
  ];
  let scaled = 0;
  for (const [tokens, microPerMTok] of terms) scaled += tokens * microPerMTok;
  if (scaled <= Number.MAX_SAFE_INTEGER) return ceilDivide(scaled, tokensPerMTok);
  // Very large requests: the products no longer fit a double exactly, so sum as bigints.
  let big = 0n;
  for (const [tokens, microPerMTok] of terms) big += BigInt(tokens) * BigInt(microPerMTok);
  const divisor = BigInt(tokensPerMTok);
  return Number((big + divisor - 1n) / divisor);
}

/** `ceil(numerator / divisor)` for non-negative safe integers, without float error. */
function ceilDivide(numerator: number, divisor: number): number {
  let quotient = Math.floor(numerator / divisor);
  let remainder = numerator - quotient * divisor;
  // The float division can be off by one for numerators near 2^53; correct it in integers.
  while (remainder < 0) {
    quotient -= 1;
    remainder += divisor;
  }
  while (remainder >= divisor) {
    quotient += 1;
    remainder -= divisor;
  }
  return remainder > 0 ? quotient + 1 : quotient;
}
