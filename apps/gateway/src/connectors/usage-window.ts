import type { QuotaWindow } from "@planfirst/quota-cache";

/** A window id from a length in minutes: 300 → `5h`, 10080 → `7d`, 1440 → `1d`, else `${m}m`. */
export function windowIdFromMinutes(minutes: number): string {
  if (minutes > 0 && minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes > 0 && minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/** A finite number from a number or a numeric string (Kimi sends strings), else null. */
export function numberOf(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/**
 * A {@link QuotaWindow} from a used share: remaining = 100 − used, clamped to 0..100, the raw used
 * share kept; `exhausted` at 0 % remaining, else `ok` (the hysteresis band lives in the ladder).
 */
export function windowFromUsedPercent(options: {
  windowId: string;
  usedPercent: number;
  resetAtMs: number | null;
  windowSeconds?: number;
  source: string;
  observedAtMs: number;
}): QuotaWindow {
  const remaining = Math.min(100, Math.max(0, 100 - options.usedPercent));
  const window: QuotaWindow = {
    windowId: options.windowId,
    remainingPercent: Math.round(remaining * 100) / 100,
    resetAt:
      options.resetAtMs !== null && Number.isFinite(options.resetAtMs)
        ? new Date(options.resetAtMs).toISOString()
        : null,
    status: remaining <= 0 ? "exhausted" : "ok",
    source: options.source,
    observedAt: new Date(options.observedAtMs).toISOString(),
    rawUsedPercent: Math.round(options.usedPercent * 100) / 100,
  };
  if (options.windowSeconds && options.windowSeconds > 0)
    window.windowSeconds = options.windowSeconds;
  return window;
}
