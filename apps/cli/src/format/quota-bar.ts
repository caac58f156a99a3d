import type { Colors } from "../context";
import { formatResetCountdown } from "./duration";

/** What a quota bar shows: the remaining share of a window and when it resets. */
export interface QuotaBarInput {
  /** 0..100 remaining; null or undefined when unknown. */
  remainingPercent: number | null | undefined;
  /** ISO-8601 reset instant of the window; null or undefined when unknown. */
  resetAt?: string | null | undefined;
}

/** Options of {@link formatQuotaBar}. */
export interface QuotaBarOptions {
  /** Epoch milliseconds the countdown is measured from. */
  nowMs: number;
  /** Cells in the bar; default 10. */
  width?: number;
  /** Colours the bar by headroom (green above 25 %, yellow above 5 %, red at or below). */
  color?: Colors;
}

/**
 * A quota bar with the remaining percent and the reset countdown:
 * `[██████░░░░]  62% resets in 2h 14m`. Unknown remaining shows `[??????????]   ?%`. Percentages
 * outside 0..100 are clamped for drawing; the number printed is rounded to a whole percent.
 */
export function formatQuotaBar(input: QuotaBarInput, options: QuotaBarOptions): string {
  const width = Math.max(1, options.width ?? 10);
  const countdown = formatResetCountdown(input.resetAt, options.nowMs);
  const remaining = input.remainingPercent;
  if (remaining === null || remaining === undefined || !Number.isFinite(remaining)) {
    const unknown = `[${"?".repeat(width)}] ${"?%".padStart(4)}`;
    return `${options.color ? options.color.dim(unknown) : unknown} ${countdown}`;
  }
  const clamped = Math.min(100, Math.max(0, remaining));
  const filled = Math.round((clamped / 100) * width);
  const bar = `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
  const percent = `${Math.round(clamped)}%`.padStart(4);
  const paint =
    options.color === undefined
      ? (text: string) => text
      : clamped > 25
        ? options.color.green
        : clamped > 5
          ? options.color.yellow
          : options.color.red;
  return `${paint(bar)} ${percent} ${countdown}`;
}
