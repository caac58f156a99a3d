import { type HeaderInput, type HeaderMap, toHeaderMap } from "./header-input";
import { isoFromMs, safeNowMs } from "./normalise";
import { parseHttpDate } from "./parse-http-date";

const DELAY = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

function delayAt(value: string | undefined, unitMs: number, nowMs: number): number | null {
  if (value === undefined || !DELAY.test(value)) return null;
  const delayMs = Number(value) * unitMs;
  return Number.isFinite(delayMs) ? nowMs + Math.max(0, delayMs) : null;
}

/** {@link parseRetryAfter} over an already normalised header map. */
export function retryAfterFromMap(headers: HeaderMap, observedAtMs: number): string | null {
  const nowMs = safeNowMs(observedAtMs);
  // Azure and the OpenAI SDKs read the millisecond forms first.
  for (const name of ["retry-after-ms", "x-ms-retry-after-ms"]) {
    const at = delayAt(headers.get(name), 1, nowMs);
    if (at !== null) return isoFromMs(at);
  }
  const value = headers.get("retry-after");
  if (value === undefined) return null;
  const at = delayAt(value, 1000, nowMs);
  if (at !== null) return isoFromMs(at);
  const dateMs = parseHttpDate(value);
  return dateMs === null ? null : isoFromMs(Math.max(nowMs, dateMs));
}

/**
 * When a retry may succeed, from `retry-after-ms`, `x-ms-retry-after-ms` or `Retry-After`
 * (delay seconds, fractional allowed, or an HTTP-date in any of the three RFC 9110 forms).
 * Negative delays and past dates clamp to the observation instant ("retry now"). Long waits are
 * kept as sent: a weekly lockout of 100 000+ seconds is real (pitfall 5).
 *
 * @param observedAtMs epoch ms at which the response arrived; relative delays count from it
 * @returns ISO-8601 instant, or null when no usable header was sent
 */
export function parseRetryAfter(
  headers: HeaderInput | null | undefined,
  observedAtMs: number,
): string | null {
  return retryAfterFromMap(toHeaderMap(headers), observedAtMs);
}
