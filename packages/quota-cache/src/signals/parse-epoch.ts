import { finiteNumber } from "./normalise";

/** Values below this are epoch seconds, at or above it epoch milliseconds (year 2001 in ms). */
const SECONDS_MS_BOUNDARY = 1e12;
const MAX_DATE_MS = 8.64e15;

/**
 * Reads a Unix epoch instant sent as seconds (Claude unified resets, Codex `reset_at`) or as
 * milliseconds (OpenRouter `X-RateLimit-Reset`, Cursor `billingCycleEnd`, a string): below 1e12
 * it is seconds, otherwise milliseconds (pitfall 2). Accepts numbers and plain decimal strings.
 * `0`, negatives and empty values mean "no reset" (pitfall 6).
 *
 * @returns epoch milliseconds, or null
 */
export function parseEpoch(value: unknown): number | null {
  const n = finiteNumber(value);
  if (n === null || n <= 0) return null;
  const ms = n < SECONDS_MS_BOUNDARY ? n * 1000 : n;
  return ms <= MAX_DATE_MS ? Math.round(ms) : null;
}
