import type { QuotaWindow } from "@planfirst/quota-cache";
import { bodyObject } from "../connector";
import { numberOf, windowFromUsedPercent, windowIdFromMinutes } from "../usage-window";

const MINUTES_PER_UNIT: ReadonlyArray<[string, number]> = [
  ["SECOND", 1 / 60],
  ["MINUTE", 1],
  ["HOUR", 60],
  ["DAY", 1440],
  ["WEEK", 10_080],
];

function minutesOf(window: Record<string, unknown> | null): number | null {
  const duration = numberOf(window?.duration);
  const unit = typeof window?.timeUnit === "string" ? window.timeUnit.toUpperCase() : "";
  const perUnit = MINUTES_PER_UNIT.find(([name]) => unit.includes(name))?.[1];
  if (duration === null || duration <= 0 || perUnit === undefined) return null;
  return Math.round(duration * perUnit);
}

function usedPercentOf(detail: Record<string, unknown>): number | null {
  const limit = numberOf(detail.limit);
  if (limit === null || limit <= 0) return null;
  const used = numberOf(detail.used);
  if (used !== null) return (100 * used) / limit;
  const remaining = numberOf(detail.remaining);
  return remaining === null ? null : (100 * (limit - remaining)) / limit;
}

function resetMsOf(detail: Record<string, unknown>): number | null {
  const value = detail.resetTime ?? detail.reset_time ?? detail.resetAt;
  if (typeof value !== "string") return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * Windows from Kimi Code `GET /coding/v1/usages` (numbers arrive as strings): the top-level
 * `usage` is the weekly window `7d`; each `limits[]` entry's `window {duration, timeUnit}` names
 * its window (300 minutes → `5h`). Used share from `used`, else `limit − remaining`. Pure and total.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseKimiUsage(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const record = bodyObject(payload);
  if (!record) return [];
  const windows: QuotaWindow[] = [];
  const weekly = bodyObject(record.usage);
  if (weekly) {
    const usedPercent = usedPercentOf(weekly);
    if (usedPercent !== null) {
      windows.push(
        windowFromUsedPercent({
          windowId: "7d",
          usedPercent,
          resetAtMs: resetMsOf(weekly),
          windowSeconds: 604_800,
          source: "kimi:usage",
          observedAtMs,
        }),
      );
    }
  }
  const limits = Array.isArray(record.limits) ? record.limits : [];
  for (const entry of limits) {
    const limit = bodyObject(entry);
    const detail = bodyObject(limit?.detail);
    const minutes = minutesOf(bodyObject(limit?.window));
    if (!detail || minutes === null) continue;
    const usedPercent = usedPercentOf(detail);
    if (usedPercent === null) continue;
    const windowId = windowIdFromMinutes(minutes);
    if (windows.some((w) => w.windowId === windowId)) continue;
    windows.push(
      windowFromUsedPercent({
        windowId,
        usedPercent,
        resetAtMs: resetMsOf(detail),
        windowSeconds: minutes * 60,
        source: "kimi:usage",
        observedAtMs,
      }),
    );
  }
  return windows;
}
