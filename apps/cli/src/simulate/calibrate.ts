import type { ModelPrice } from "@planfirst/billing-catalog";
import { costOf, microToUsd } from "@planfirst/spend-ledger";
import type { PlanAllowance } from "./plan-allowance";
import type { TraceRecord, UtilizationReading } from "./trace-record";

/** Readings below this share used say too little to scale from (one request can be 1 %). */
export const MIN_CALIBRATION_USED_PERCENT = 5;

/** What calibration found for one window: the allowance and how many readings it rests on. */
export interface Calibration {
  allowance: PlanAllowance;
  readings: number;
}

/**
 * Derives a plan's allowance per window in API-equivalent USD from real utilization readings
 * (Codex `rate_limits`): for each reading with at least {@link MIN_CALIBRATION_USED_PERCENT}
 * used, the API-equivalent cost of that provider's logged requests since the window began
 * (`resets_at − window`) divided by the share used; the median over readings is the answer.
 * Traffic the trace does not hold (another machine, the web app) also fills the window, which
 * makes this estimate low, never high: the replay then runs out of plan sooner, so the saving it
 * shows is not overstated.
 */
export function calibrateAllowances(
  provider: string,
  target: string,
  readings: readonly UtilizationReading[],
  records: readonly TraceRecord[],
  priceOf: (model: string) => ModelPrice | undefined,
): Calibration[] {
  // The plan's requests are those of the logs that carried its readings (Codex's own logs).
  const sources = new Set(
    readings.filter((reading) => reading.provider === provider).map((reading) => reading.source),
  );
  if (sources.size === 0) return [];
  const own = records.filter((record) => sources.has(record.source));
  // Prefix sums of API-equivalent cost, so each reading costs two binary searches.
  const prefixUsd = [0];
  for (const record of own) {
    const price = priceOf(record.model);
    prefixUsd.push(
      prefixUsd[prefixUsd.length - 1]! + (price ? microToUsd(costOf(record, price)) : 0),
    );
  }
  const firstAtOrAfter = (timeMs: number) => {
    let lo = 0;
    let hi = own.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (own[mid]!.timeMs < timeMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const byWindow = new Map<number, number[]>();
  for (const reading of readings) {
    if (reading.provider !== provider || reading.usedPercent < MIN_CALIBRATION_USED_PERCENT) {
      continue;
    }
    const startMs = reading.resetsAtMs - reading.windowMinutes * 60_000;
    const usedUsd =
      prefixUsd[firstAtOrAfter(reading.timeMs + 1)]! - prefixUsd[firstAtOrAfter(startMs)]!;
    if (usedUsd <= 0) continue;
    const estimates = byWindow.get(reading.windowMinutes) ?? [];
    estimates.push(usedUsd / (reading.usedPercent / 100));
    byWindow.set(reading.windowMinutes, estimates);
  }
  const out: Calibration[] = [];
  for (const [windowMinutes, estimates] of [...byWindow].sort((a, b) => a[0] - b[0])) {
    estimates.sort((a, b) => a - b);
    const middle = Math.floor(estimates.length / 2);
    const median =
      estimates.length % 2 === 1
        ? estimates[middle]!
        : (estimates[middle - 1]! + estimates[middle]!) / 2;
    const hours = windowMinutes / 60;
    const windowId = hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
    out.push({
      allowance: {
        target,
        windowId,
        length: { kind: "rolling", lengthMs: windowMinutes * 60_000 },
        amount: median,
        unit: "usd",
        origin: "calibrated",
      },
      readings: estimates.length,
    });
  }
  return out;
}
