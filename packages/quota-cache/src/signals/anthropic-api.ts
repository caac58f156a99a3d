import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { classifyAnthropicError } from "./anthropic-error";
import {
  finiteNumber,
  isoFromMs,
  makeWindow,
  parseIsoInstant,
  percentFromCounts,
} from "./normalise";
import { finishSignals, makeFailure, type ResponseInput, toContext } from "./response-input";

/** Header dimension → window id; every Anthropic bucket is per minute. */
const DIMENSIONS: ReadonlyArray<[string, string]> = [
  ["anthropic-ratelimit-requests", "rpm"],
  ["anthropic-ratelimit-tokens", "tpm"],
  ["anthropic-ratelimit-input-tokens", "itpm"],
  ["anthropic-ratelimit-output-tokens", "otpm"],
  ["anthropic-priority-input-tokens", "priority-itpm"],
  ["anthropic-priority-output-tokens", "priority-otpm"],
];

function count(value: string | undefined): number | null {
  const n = finiteNumber(value);
  return n === null || n < 0 ? null : n;
}

/**
 * Signals from an Anthropic API-key response (quota-signals.md §1). One window per dimension:
 * `rpm` (requests), `tpm` (tokens, the most restrictive limit in effect), `itpm`, `otpm`, and the
 * Priority Tier `priority-itpm` / `priority-otpm`; remaining = 100·remaining/limit, reset is the
 * RFC 3339 "fully replenished" instant, window 60 s. A dimension with no limit, or limit 0, is
 * absent.
 *
 * Failures: 429 `rate_limit_error` → rate_limited, retry at Retry-After, reset at the latest
 * reset among dimensions at 0 (the exhausted dimension is the failure's `windowId`); 529
 * `overloaded_error` → overloaded and no window is marked exhausted; 402 billing or "credit
 * balance is too low" → credits_exhausted; 401/403 → auth_invalid.
 */
export function parseAnthropicApiResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const classified = classifyAnthropicError(context);
  const overloaded = classified?.kind === "overloaded";
  const windows: QuotaWindow[] = [];
  for (const [prefix, windowId] of DIMENSIONS) {
    const limit = count(context.headers.get(`${prefix}-limit`));
    const remaining = count(context.headers.get(`${prefix}-remaining`));
    if (limit === null || limit === 0 || remaining === null) continue;
    windows.push(
      makeWindow({
        windowId,
        remainingPercent: percentFromCounts(remaining, limit),
        resetAtMs: parseIsoInstant(context.headers.get(`${prefix}-reset`)),
        windowSeconds: 60,
        // Capacity is not quota: a 529 never marks a window exhausted (pitfall 10).
        allowed: overloaded,
        source: "header",
        observedAt: context.observedAt,
      }),
    );
  }

  let failure: UpstreamFailure | undefined = classified;
  if (classified?.kind === "rate_limited") {
    const spent = windows.filter((w) => w.remainingPercent === 0);
    const latest = spent
      .map((w) => ({
        w,
        ms: w.resetAt === null ? Number.NEGATIVE_INFINITY : Date.parse(w.resetAt),
      }))
      .sort((a, b) => b.ms - a.ms)[0];
    const retryMs = context.retryAt === null ? null : Date.parse(context.retryAt);
    const resetMs = latest && Number.isFinite(latest.ms) ? latest.ms : null;
    failure = makeFailure("rate_limited", {
      retryAt: context.retryAt,
      // Exhausted until max(now + retry-after, reset of the dimension at 0).
      resetAt: isoFromMs(
        resetMs === null ? null : retryMs === null ? resetMs : Math.max(resetMs, retryMs),
      ),
      windowId: latest?.w.windowId,
      code: classified.code,
    });
  }
  return finishSignals(context, windows, failure);
}
