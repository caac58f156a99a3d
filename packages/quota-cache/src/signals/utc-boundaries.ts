import { safeNowMs } from "./normalise";

const DAY_MS = 86_400_000;

/** Next 00:00 UTC strictly after `nowMs` (OpenRouter free daily, pitfall 15). */
export function nextUtcMidnightMs(nowMs: number): number {
  const now = new Date(safeNowMs(nowMs));
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

/** Next Monday 00:00 UTC strictly after `nowMs` (OpenRouter weekly limits start Monday UTC). */
export function nextUtcMondayMs(nowMs: number): number {
  const now = new Date(safeNowMs(nowMs));
  const daysUntilMonday = (8 - now.getUTCDay()) % 7 || 7;
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + daysUntilMonday);
}

/** First day of the next month, 00:00 UTC. */
export function nextUtcMonthStartMs(nowMs: number): number {
  const now = new Date(safeNowMs(nowMs));
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

const HOUR_MS = 3_600_000;

/** Day of month of the `nth` Sunday (1-based) of a month, UTC calendar. */
function nthSunday(year: number, month: number, nth: number): number {
  const firstWeekday = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - firstWeekday) % 7) + (nth - 1) * 7;
}

/**
 * Offset of US Pacific time from UTC at an instant, in ms: −7 h from the second Sunday of March
 * 02:00 PST to the first Sunday of November 02:00 PDT (US rules since 2007), else −8 h. Computed
 * from the rules rather than `Intl`, which costs a formatter per call.
 */
function pacificOffsetMs(atMs: number): number {
  const year = new Date(atMs).getUTCFullYear();
  const dstStart = Date.UTC(year, 2, nthSunday(year, 2, 2), 10);
  const dstEnd = Date.UTC(year, 10, nthSunday(year, 10, 1), 9);
  return atMs >= dstStart && atMs < dstEnd ? -7 * HOUR_MS : -8 * HOUR_MS;
}

/**
 * Next midnight in America/Los_Angeles strictly after `nowMs`: Gemini API daily quotas reset
 * then (quota-signals.md §6a). Daylight saving time is honoured.
 */
export function nextPacificMidnightMs(nowMs: number): number {
  const safeMs = safeNowMs(nowMs);
  const localMs = safeMs + pacificOffsetMs(safeMs);
  const nextLocalMidnight = Math.floor(localMs / DAY_MS + 1) * DAY_MS;
  // DST switches at 02:00 local, so the offset at midnight is that of 8 h later in UTC terms.
  return nextLocalMidnight - pacificOffsetMs(nextLocalMidnight + 8 * HOUR_MS);
}
