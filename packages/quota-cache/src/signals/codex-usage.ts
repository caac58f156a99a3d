import type { QuotaWindow } from "../quota-state";
import { type CodexWindowReading, codexWindow, isAbsentCodexWindow } from "./codex-window";
import { field, finiteNumber, isoFromMs, isRecord, safeNowMs, text } from "./normalise";
import { parseEpoch } from "./parse-epoch";

function readWindow(
  raw: unknown,
  slot: string,
  nowMs: number,
  observedAt: string,
  source: string,
): CodexWindowReading | undefined {
  if (!isRecord(raw)) return undefined;
  const seconds = finiteNumber(raw.limit_window_seconds);
  const minutesField = finiteNumber(raw.window_minutes);
  // The official client turns seconds into minutes with ceil(s / 60).
  const minutes =
    seconds !== null && seconds > 0
      ? Math.ceil(seconds / 60)
      : minutesField !== null && minutesField > 0
        ? Math.round(minutesField)
        : null;
  const after = finiteNumber(raw.reset_after_seconds);
  const resetMs =
    parseEpoch(raw.reset_at) ?? (after !== null && after > 0 ? nowMs + after * 1000 : null);
  return {
    slot,
    usedPercent: finiteNumber(raw.used_percent),
    minutes,
    resetMs,
    source,
    observedAt,
  };
}

function limitWindows(
  rateLimit: unknown,
  nowMs: number,
  observedAt: string,
  source: string,
  limit?: { limitId: string; model: string },
): QuotaWindow[] {
  if (!isRecord(rateLimit)) return [];
  const readings = (
    [
      ["primary", rateLimit.primary_window ?? rateLimit.primary],
      ["secondary", rateLimit.secondary_window ?? rateLimit.secondary],
    ] as const
  )
    .map(([slot, raw]) => readWindow(raw, slot, nowMs, observedAt, source))
    .filter((r): r is CodexWindowReading => r !== undefined && !isAbsentCodexWindow(r))
    .map((r) => (limit ? { ...r, limitId: limit.limitId, model: limit.model } : r));
  const reached = rateLimit.limit_reached === true || rateLimit.allowed === false;
  // When the limit is reached, the window that reached it is the most used one.
  const mostUsed = reached
    ? readings.reduce<CodexWindowReading | undefined>(
        (best, r) => ((r.usedPercent ?? -1) > (best?.usedPercent ?? -1) ? r : best),
        undefined,
      )
    : undefined;
  return readings.map((r) => codexWindow({ ...r, limitReached: r === mostUsed }));
}

/**
 * Windows from the Codex usage endpoint `GET chatgpt.com/backend-api/wham/usage`
 * (quota-signals.md §4c), or from the in-band `codex.rate_limits` event (quota-signals.md §4b,
 * `source: "event"`). `rate_limit.primary_window` / `secondary_window`: `used_percent` →
 * remaining, `limit_window_seconds` → window id by length (`5h`, `7d`, `<m>m`), reset from
 * `reset_at` (epoch s) or `reset_after_seconds`. `additional_rate_limits[]` become model-scoped
 * windows `<id>:<metered_feature>` (scope = the lower-cased `limit_name`). `limit_reached` or
 * `allowed: false` marks the most used window exhausted. The code-review limit does not gate API
 * traffic and is skipped.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseCodexUsage(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const nowMs = safeNowMs(observedAtMs);
  const observedAt = isoFromMs(nowMs)!;
  if (!isRecord(payload)) return [];
  if (payload.type === "codex.rate_limits" || isRecord(payload.rate_limits)) {
    return limitWindows(payload.rate_limits, nowMs, observedAt, "event");
  }
  const windows = limitWindows(payload.rate_limit, nowMs, observedAt, "endpoint");
  const extra = payload.additional_rate_limits;
  if (Array.isArray(extra)) {
    for (const entry of extra) {
      const feature = text(field(entry, "metered_feature"))?.toLowerCase();
      if (!feature) continue;
      const model = text(field(entry, "limit_name"))?.toLowerCase() ?? feature;
      windows.push(
        ...limitWindows(field(entry, "rate_limit"), nowMs, observedAt, "endpoint", {
          limitId: feature,
          model,
        }),
      );
    }
  }
  return windows;
}
