import type { QuotaWindow } from "@planfirst/quota-cache";
import { bodyObject } from "../connector";
import { numberOf, windowFromUsedPercent, windowIdFromMinutes } from "../usage-window";

/** Minutes per z.ai limit `unit` code as observed: 3 = hour, 5 = month (tool calls), 6 = week, 1 = day. */
const UNIT_MINUTES: Readonly<Record<number, number>> = { 1: 1440, 3: 60, 6: 10_080 };

/**
 * Windows from z.ai `GET /api/monitor/usage/quota/limit`: the `TOKENS_LIMIT` entry (the 5 h
 * token window: `percentage` used, `nextResetTime` epoch ms) as window `5h` (id from `unit` and
 * `number`). `TIME_LIMIT` counts MCP tool calls (web search, reader), which never gate chat, so it
 * gives no window: its exhaustion must not take the connection off the ladder. A body with
 * `success: false` (z.ai answers a bad key with HTTP 200 and `code: 401`) gives `[]`; see
 * {@link zaiUsageRefusal}. Pure and total.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseZaiUsage(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const record = bodyObject(payload);
  if (!record || record.success === false) return [];
  const limits = bodyObject(record.data)?.limits;
  if (!Array.isArray(limits)) return [];
  const windows: QuotaWindow[] = [];
  for (const entry of limits) {
    const limit = bodyObject(entry);
    if (limit?.type !== "TOKENS_LIMIT") continue;
    const usedPercent = numberOf(limit.percentage);
    if (usedPercent === null) continue;
    const unit = numberOf(limit.unit);
    const count = numberOf(limit.number);
    const perUnit = unit !== null ? UNIT_MINUTES[unit] : undefined;
    const minutes = perUnit !== undefined && count !== null && count > 0 ? perUnit * count : 300;
    windows.push(
      windowFromUsedPercent({
        windowId: windowIdFromMinutes(minutes),
        usedPercent,
        resetAtMs: numberOf(limit.nextResetTime),
        windowSeconds: minutes * 60,
        source: "zai:usage",
        observedAtMs,
      }),
    );
  }
  return windows;
}

/**
 * The z.ai monitor API's refusal inside an HTTP 200 (`{"code":401,"success":false}`, a bad key or
 * one without a plan), as its code (`"401"`; `"0"` when it names none), or null when the body is
 * a normal answer. The poller treats a refusal as an auth failure.
 */
export function zaiUsageRefusal(payload: unknown): string | null {
  const record = bodyObject(payload);
  if (record?.success !== false) return null;
  return String(numberOf(record.code) ?? 0);
}
