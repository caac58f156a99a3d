import type { QuotaWindow } from "./quota-state";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Clock skew allowed on top of every window's length, in ms: 10 minutes. */
export const PLAUSIBILITY_SKEW_MS = 10 * 60_000;

/** Longest window any provider has (a calendar month), in ms: 31 days. */
export const LONGEST_WINDOW_MS = 31 * DAY_MS;

/** Horizon of a window whose length is not known (and of a bare Retry-After), in ms: 7 days. */
export const UNKNOWN_WINDOW_MS = 7 * DAY_MS;

/**
 * How far ahead a reset of this window may plausibly lie, in ms, skew excluded:
 * the window's own length when known (`windowSeconds`, at most 31 days); else by id: `5h…` 5 h,
 * `7d…`/weekly 7 days, monthly ones (`monthly`, Copilot `premium_interactions`, `chat`,
 * `completions`) 31 days, daily ones (`daily`, `free_daily`, `tpd`, `rpd`) 1 day; anything
 * else, or no window at all, 7 days.
 */
export function windowHorizonMs(
  windowId: string | null | undefined,
  windowSeconds?: number | null,
): number {
  if (typeof windowSeconds === "number" && Number.isFinite(windowSeconds) && windowSeconds > 0) {
    return Math.min(windowSeconds * 1000, LONGEST_WINDOW_MS);
  }
  const id = typeof windowId === "string" ? windowId.toLowerCase() : "";
  if (id.startsWith("5h")) return 5 * HOUR_MS;
  if (id.startsWith("7d") || id.includes("week")) return 7 * DAY_MS;
  if (
    id.includes("month") ||
    id.startsWith("premium_interactions") ||
    id === "chat" ||
    id === "completions"
  ) {
    return LONGEST_WINDOW_MS;
  }
  if (id.includes("daily") || id.startsWith("tpd") || id.startsWith("rpd") || id === "day") {
    return DAY_MS;
  }
  return UNKNOWN_WINDOW_MS;
}

/** Latest plausible instant for a reset of the window, in epoch ms: now + horizon + skew. */
export function latestPlausibleMs(
  nowMs: number,
  windowId: string | null | undefined,
  windowSeconds?: number | null,
): number {
  return nowMs + windowHorizonMs(windowId, windowSeconds) + PLAUSIBILITY_SKEW_MS;
}

/** An upstream time that lay beyond what its window allows, and was dropped (read as unknown). */
export interface ImplausibleTime {
  /** The window it belonged to; null for a failure that named none. */
  windowId: string | null;
  /** Which value: a window's or failure's `resetAt`, or a failure's `retryAt` (Retry-After & co). */
  field: "resetAt" | "retryAt";
  /** Where it came from: `header`, `usage`, `event`, `failure`, or `retry-after` for a retry instant. */
  source: string;
  /** The ISO instant the upstream gave. */
  value: string;
  /** The horizon it exceeded (window length + skew), in ms. */
  maxAheadMs: number;
}

/** True when the ISO instant is within the window's horizon of `nowMs` (past instants are plausible). */
export function isPlausibleInstant(
  iso: string | null | undefined,
  nowMs: number,
  windowId: string | null | undefined,
  windowSeconds?: number | null,
): boolean {
  if (!iso) return true;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return true;
  return ms <= latestPlausibleMs(nowMs, windowId, windowSeconds);
}

/**
 * Drops every implausible `resetAt` from the windows (the window stays, its reset becomes
 * unknown) and reports each one in `implausible`. Returns the same array when nothing changed.
 */
export function boundWindowResets(
  windows: QuotaWindow[],
  nowMs: number,
  implausible: ImplausibleTime[],
): QuotaWindow[] {
  let out: QuotaWindow[] | undefined;
  windows.forEach((window, index) => {
    if (isPlausibleInstant(window.resetAt, nowMs, window.windowId, window.windowSeconds)) return;
    implausible.push({
      windowId: window.windowId,
      field: "resetAt",
      source: window.source,
      value: window.resetAt!,
      maxAheadMs: windowHorizonMs(window.windowId, window.windowSeconds) + PLAUSIBILITY_SKEW_MS,
    });
    out ??= [...windows];
    out[index] = { ...window, resetAt: null };
  });
  return out ?? windows;
}
