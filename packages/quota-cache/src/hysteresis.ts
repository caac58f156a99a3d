import type { QuotaWindow } from "./quota-state";

/** Thresholds of the hysteresis band, in percent remaining (ladder.md §5). */
export interface HysteresisBand {
  /** At or below this, a window latches as exhausted (H1). Default 2. */
  exitCutoffPercent: number;
  /** A fresh reading above this clears the latch (H2). Default 5; never below the exit cutoff. */
  reentryMinRemainingPercent: number;
}

/**
 * Next value of a window's exhaustion latch after a new reading (rules H1–H2):
 * latched when the reading is `exhausted` or shows remaining ≤ the exit cutoff; cleared only by a
 * fresh reading above `max(reentry floor, exit cutoff)`; otherwise unchanged. A reading with
 * unknown remaining, or one that is not fresh, never clears it.
 */
export function nextExhaustionLatch(
  latched: boolean,
  reading: Pick<QuotaWindow, "status" | "remainingPercent">,
  band: HysteresisBand,
  fresh: boolean,
): boolean {
  const remaining = reading.remainingPercent;
  if (reading.status === "exhausted") return true;
  if (remaining !== null && remaining <= band.exitCutoffPercent) return true;
  const floor = Math.max(band.reentryMinRemainingPercent, band.exitCutoffPercent);
  if (fresh && remaining !== null && remaining > floor) return false;
  return latched;
}
