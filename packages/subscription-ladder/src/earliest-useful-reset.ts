import type { QuotaState } from "@planfirst/quota-cache";
import { parseIsoInstantMs } from "./iso-instant";
import {
  DEFAULT_EXIT_CUTOFF_PERCENT,
  DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
  type QuotaUsabilityOptions,
  quotaThresholdPercent,
} from "./quota-usability";

/**
 * The earliest instant (epoch ms) at which one of the given plan readings gets its headroom
 * back, or undefined when none of them says. The one earliest-reset computation: the gateway's
 * exhausted-pool answer (`Retry-After`) and `/v1/ladder` both call it, so they agree.
 *
 * A reading counts only when its quota keeps the connection out of the pool:
 * - `exhausted`: its binding `resetAt` and every window reset it carries;
 * - `available` at or below the threshold of rule Q6: the exit cutoff, or, once the hysteresis
 *   latch is set (H2), `max(reentryMinRemainingPercent, exitCutoffPercent)`, so a plan at 3 %
 *   after an exhaustion (out of the pool under the default 5 % floor) still gives its reset.
 * Readings with headroom, unknown status or no remaining figure say nothing; instants at or
 * before `now` are ignored (the window is already gone, rule S2).
 *
 * Input is deliberately plain: the pool's quota readings (undefined for none) and the quota
 * part of the ladder options (`exitCutoffPercent`, `reentryMinRemainingPercent`, `now`).
 */
export function earliestUsefulReset(
  readings: Iterable<QuotaState | undefined>,
  options: QuotaUsabilityOptions = {},
): number | undefined {
  const nowMs = (options.now ?? Date.now)();
  const exitCutoff = options.exitCutoffPercent ?? DEFAULT_EXIT_CUTOFF_PERCENT;
  const reentryFloor = options.reentryMinRemainingPercent ?? DEFAULT_REENTRY_MIN_REMAINING_PERCENT;
  let earliest = Infinity;
  const consider = (iso: string | null | undefined) => {
    if (!iso) return;
    const ms = parseIsoInstantMs(iso);
    if (ms > nowMs && ms < earliest) earliest = ms;
  };
  for (const state of readings) {
    if (!state) continue;
    if (state.status === "exhausted") {
      consider(state.resetAt);
      for (const window of state.windows) consider(window.resetAt);
      continue;
    }
    if (state.status !== "available" || state.remainingPercent === null) continue;
    const threshold = quotaThresholdPercent(exitCutoff, reentryFloor, state.hasBeenExhausted);
    if (state.remainingPercent <= threshold) consider(state.resetAt);
  }
  return Number.isFinite(earliest) ? earliest : undefined;
}
