import { invalidArgument } from "./errors";

/** Length of a budget window. Weeks start on Monday. */
export type BudgetWindow = "day" | "week" | "month";

/** The accepted budget windows. */
export const BUDGET_WINDOWS: readonly BudgetWindow[] = ["day", "week", "month"];

// Every time zone in use today changes its offset on a quarter-hour boundary, so the local
// date cannot change inside one aligned quarter hour: one lookup per quarter hour suffices.
const quarterHourMs = 15 * 60 * 1000;
const dayMs = 24 * 60 * 60 * 1000;

/**
 * Key of the budget window that contains the instant `atMs` in `timeZone`:
 * `day:2026-11-30`, `week:2026-11-30` (the window's Monday) or `month:2026-11`. The local date
 * comes from `Intl.DateTimeFormat`, so daylight-saving changes move the window edges with the
 * local midnight. Keys sort in time order within one window length.
 *
 * @param atMs epoch milliseconds
 * @param timeZone IANA time zone name; default `"UTC"`
 * @throws SpendLedgerError `invalid_argument` for an unknown window or time zone
 */
export function windowKey(window: BudgetWindow, atMs: number, timeZone = "UTC"): string {
  return createWindowKeyer(window, timeZone)(atMs);
}

/**
 * A function from epoch milliseconds to {@link windowKey} for one window and time zone. It keeps
 * its own formatter and remembers the last quarter hour it resolved, so calling it per request
 * is cheap. Validates the window and the time zone once, here.
 */
export function createWindowKeyer(
  window: BudgetWindow,
  timeZone = "UTC",
): (atMs: number) => string {
  if (!BUDGET_WINDOWS.includes(window)) {
    invalidArgument("window", BUDGET_WINDOWS.map((w) => `"${w}"`).join(" | "), window);
  }
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hourCycle: "h23",
    });
  } catch (error) {
    invalidArgument("timeZone", "an IANA time zone name such as Europe/Paris or UTC", timeZone);
    throw error;
  }
  let lastSlot = Number.NaN;
  let lastKey = "";
  return (atMs: number) => {
    if (!Number.isFinite(atMs)) invalidArgument("atMs", "finite epoch milliseconds", atMs);
    const slot = Math.floor(atMs / quarterHourMs);
    if (slot === lastSlot) return lastKey;
    lastKey = keyFor(window, localDate(formatter, atMs));
    lastSlot = slot;
    return lastKey;
  };
}

interface LocalDate {
  year: number;
  month: number;
  day: number;
}

function localDate(formatter: Intl.DateTimeFormat, atMs: number): LocalDate {
  let year = 0;
  let month = 0;
  let day = 0;
  for (const part of formatter.formatToParts(atMs)) {
    if (part.type === "year") year = Number(part.value);
    else if (part.type === "month") month = Number(part.value);
    else if (part.type === "day") day = Number(part.value);
  }
  return { year, month, day };
}

function keyFor(window: BudgetWindow, date: LocalDate): string {
  if (window === "month") return `month:${pad(date.year, 4)}-${pad(date.month, 2)}`;
  if (window === "day") return `day:${isoDate(Date.UTC(date.year, date.month - 1, date.day))}`;
  const noonUtc = Date.UTC(date.year, date.month - 1, date.day, 12);
  const daysSinceMonday = (new Date(noonUtc).getUTCDay() + 6) % 7;
  return `week:${isoDate(noonUtc - daysSinceMonday * dayMs)}`;
}

function isoDate(utcMs: number): string {
  return new Date(utcMs).toISOString().slice(0, 10);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/**
 * An instant by which the window of `key` (a {@link windowKey}) has ended in every time zone:
 * the UTC midnight after its last local date, plus a day, which covers every offset in use
 * (UTC−12 to UTC+14). `Infinity` for a key of another shape: such a window is never taken for
 * ended.
 */
export function windowEndBoundMs(key: string): number {
  const match = /^(day|week|month):(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(key);
  if (!match) return Number.POSITIVE_INFINITY;
  const [, window, year, month, day] = match;
  const y = Number(year);
  const m = Number(month) - 1;
  if (window === "month")
    return day === undefined ? Date.UTC(y, m + 1, 1) + dayMs : Number.POSITIVE_INFINITY;
  if (day === undefined) return Number.POSITIVE_INFINITY;
  const length = window === "week" ? 7 : 1;
  return Date.UTC(y, m, Number(day) + length) + dayMs;
}
