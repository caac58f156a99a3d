/** One remaining-percent reading of a plan window at an instant. */
export interface RemainingSample {
  /** Epoch milliseconds of the reading. */
  atMs: number;
  /** 0..100 remaining. */
  remainingPercent: number;
}

/** How fast a plan window is being used and whether it lasts until its reset. */
export interface WindowPace {
  /** Percentage points of the window used per hour over the last hour; 0 when nothing was used. */
  burnPercentPerHour: number;
  /** ISO-8601 instant the window runs out at this pace; null when it is not being used. */
  exhaustsAt: string | null;
  /** ISO-8601 reset of the window; null when unknown. */
  resetAt: string | null;
  /**
   * Milliseconds the window runs out before it resets at this pace (positive = runs out first);
   * null when it is not being used or the reset is unknown.
   */
  runsOutBeforeResetMs: number | null;
  /** The pace in one sentence, e.g. "at this pace the 5h window runs out 40 min before it resets". */
  summary: string;
}

/** Length of the look-back the burn rate is measured over: one hour, in milliseconds. */
const PACE_LOOKBACK_MS = 3_600_000;

/**
 * The pace of one plan window: the burn rate over the last hour (from the earliest reading of the
 * look-back to the current one) and the projected instant the window runs out, against its reset.
 * Readings before the last rise in remaining are ignored: a rise means the window reset (or a
 * fresh window began), and usage of the old window says nothing of the new one. With fewer than
 * two readings in the look-back, or none used, the window is "not being used".
 *
 * @param samples readings in any order; only those in `[nowMs - PACE_LOOKBACK_MS, nowMs]` count
 * @param current the reading now (remaining percent and reset)
 * @param nowMs epoch milliseconds
 */
export function windowPace(
  windowId: string,
  samples: readonly RemainingSample[],
  current: { remainingPercent: number | null; resetAt: string | null },
  nowMs: number,
): WindowPace {
  const resetMs = current.resetAt ? Date.parse(current.resetAt) : Number.NaN;
  const resetAt = Number.isFinite(resetMs) ? new Date(resetMs).toISOString() : null;
  const quiet = (summary: string): WindowPace => ({
    burnPercentPerHour: 0,
    exhaustsAt: null,
    resetAt,
    runsOutBeforeResetMs: null,
    summary,
  });
  if (current.remainingPercent === null) return quiet(`no reading of the ${windowId} window`);
  const points = samples
    .filter((s) => s.atMs >= nowMs - PACE_LOOKBACK_MS && s.atMs <= nowMs)
    .sort((a, b) => a.atMs - b.atMs);
  points.push({ atMs: nowMs, remainingPercent: current.remainingPercent });
  let start = 0;
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.remainingPercent > points[i - 1]!.remainingPercent) start = i;
  }
  const first = points[start]!;
  const last = points[points.length - 1]!;
  const used = first.remainingPercent - last.remainingPercent;
  const spanMs = last.atMs - first.atMs;
  if (current.remainingPercent <= 0) {
    return {
      ...quiet(`the ${windowId} window is used up`),
      exhaustsAt: new Date(nowMs).toISOString(),
    };
  }
  if (used <= 0 || spanMs <= 0) return quiet(`the ${windowId} window is not being used`);
  const burnPercentPerHour = (used / spanMs) * PACE_LOOKBACK_MS;
  const exhaustsMs = nowMs + (current.remainingPercent / burnPercentPerHour) * PACE_LOOKBACK_MS;
  const rate = `${formatPercent(burnPercentPerHour)} %/h`;
  if (!resetAt) {
    return {
      burnPercentPerHour,
      exhaustsAt: new Date(exhaustsMs).toISOString(),
      resetAt,
      runsOutBeforeResetMs: null,
      summary: `at ${rate} the ${windowId} window runs out in ${formatSpan(exhaustsMs - nowMs)}`,
    };
  }
  const beforeMs = resetMs - exhaustsMs;
  return {
    burnPercentPerHour,
    exhaustsAt: new Date(exhaustsMs).toISOString(),
    resetAt,
    runsOutBeforeResetMs: beforeMs,
    summary:
      beforeMs > 0
        ? `at this pace (${rate}) the ${windowId} window runs out ${formatSpan(beforeMs)} before it resets`
        : `at this pace (${rate}) the ${windowId} window lasts until it resets`,
  };
}

/** A span of milliseconds as people say it: "40 min", "2 h 5 min", "3 d 4 h", "under a minute". */
export function formatSpan(ms: number): string {
  if (ms < 60_000) return "under a minute";
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

function formatPercent(value: number): string {
  return value >= 10 ? value.toFixed(0) : value.toFixed(1);
}
