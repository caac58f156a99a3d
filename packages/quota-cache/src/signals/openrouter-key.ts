import type { QuotaWindow } from "../quota-state";
import {
  field,
  finiteNumber,
  isoFromMs,
  isRecord,
  makeWindow,
  percentFromCounts,
  safeNowMs,
  text,
} from "./normalise";
import { OPENROUTER_FREE_SCOPE } from "./openrouter";
import { nextUtcMidnightMs, nextUtcMondayMs, nextUtcMonthStartMs } from "./utc-boundaries";

/**
 * Windows from OpenRouter `GET /api/v1/key` (quota-signals.md §8), with or without the `data`
 * envelope:
 * - `credits`: remaining = 100·`limit_remaining`/`limit` (USD credits); reset at the next UTC
 *   boundary of `limit_reset` (`daily` midnight, `weekly` Monday, `monthly` the 1st; `null` never).
 *   A key with no limit (`limit: null`) is unlimited and gives no window.
 * - `free_daily` (scope `:free`): `free_model_daily_requests.remaining`/`limit`, reset at the next
 *   00:00 UTC, window 86 400 s.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseOpenRouterKey(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const nowMs = safeNowMs(observedAtMs);
  const observedAt = isoFromMs(nowMs)!;
  const data = isRecord(field(payload, "data")) ? field(payload, "data") : payload;
  if (!isRecord(data)) return [];
  const windows: QuotaWindow[] = [];
  const limit = finiteNumber(data.limit);
  const limitRemaining = finiteNumber(data.limit_remaining);
  if (limit !== null && limit > 0 && limitRemaining !== null) {
    const period = text(data.limit_reset)?.toLowerCase();
    const resetAtMs =
      period === "daily"
        ? nextUtcMidnightMs(nowMs)
        : period === "weekly"
          ? nextUtcMondayMs(nowMs)
          : period === "monthly"
            ? nextUtcMonthStartMs(nowMs)
            : null;
    windows.push(
      makeWindow({
        windowId: "credits",
        remainingPercent: percentFromCounts(Math.max(0, limitRemaining), limit),
        resetAtMs,
        windowSeconds: period === "daily" ? 86_400 : period === "weekly" ? 604_800 : null,
        rawUsedPercent: (100 * (limit - limitRemaining)) / limit,
        source: "endpoint",
        observedAt,
      }),
    );
  }
  const free = data.free_model_daily_requests;
  const freeLimit = finiteNumber(field(free, "limit"));
  const freeRemaining = finiteNumber(field(free, "remaining"));
  if (freeLimit !== null && freeLimit > 0 && freeRemaining !== null) {
    windows.push(
      makeWindow({
        windowId: "free_daily",
        scope: { model: OPENROUTER_FREE_SCOPE },
        remainingPercent: percentFromCounts(Math.max(0, freeRemaining), freeLimit),
        resetAtMs: nextUtcMidnightMs(nowMs),
        windowSeconds: 86_400,
        source: "endpoint",
        observedAt,
      }),
    );
  }
  return windows;
}
