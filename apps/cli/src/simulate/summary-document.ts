import { microToUsd } from "@planfirst/spend-ledger";
import type { LadderRung } from "@planfirst/subscription-ladder";
import { RUNG_ORDER } from "@planfirst/subscription-ladder";
import type { IdReplay } from "./replay";
import { type SimulationResult, totalServed, totalSpendMicroUsd } from "./simulation";

/** One routing id's outcome in the `--json` document. Money in USD, times ISO, waits in ms. */
export interface IdSummary {
  id: string;
  requests: number;
  served: number;
  servedByRung: Record<LadderRung, number>;
  spendByRungUsd: Record<LadderRung, number>;
  spendUsd: number;
  refused: number;
  /** Null when a refused request had no plan reset to wait for. */
  totalWaitMs: number | null;
  /** What the requests this id served would have cost metered, USD. */
  servedMeteredUsd: number;
  /** `servedMeteredUsd` minus this id's spend: refused requests are neither cost nor saving. */
  savingUsd: number;
  unpricedTargetsSkipped: number;
  windows: {
    connectionId: string;
    windowId: string;
    allowance: number;
    unit: "usd" | "tokens";
    origin: "option" | "config" | "calibrated";
    exhaustedAt: string[];
    resetAt: string[];
    peakUsedPercent: number;
  }[];
}

/** The `planfirst simulate --json` document. */
export interface SimulationSummary {
  requests: number;
  from: string | null;
  to: string | null;
  files: number;
  badLines: { file: string; line: number; reason: string }[];
  allMeteredUsd: number;
  unpricedRequests: number;
  unpricedModels: string[];
  plans: {
    connectionId: string;
    provider: string;
    allowances: { windowId: string; amount: number; unit: string; origin: string }[];
    windowsWithoutAllowance: string[];
    neverOnSubscription: string | null;
  }[];
  calibrations: { target: string; windowId: string; amountUsd: number; readings: number }[];
  scenarios: {
    label: string;
    rungBudgetUsd: Record<string, number | undefined>;
    ids: IdSummary[];
  }[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Summarises one replay: its spend against what the requests it served cost metered. */
export function summarizeReplay(replay: IdReplay): IdSummary {
  const spendMicro = totalSpendMicroUsd(replay);
  const spendByRungUsd = Object.fromEntries(
    RUNG_ORDER.map((rung) => [rung, microToUsd(replay.spendByRungMicroUsd[rung])]),
  ) as Record<LadderRung, number>;
  return {
    id: replay.id,
    requests: replay.requests,
    served: totalServed(replay),
    servedByRung: { ...replay.servedByRung },
    spendByRungUsd,
    spendUsd: microToUsd(spendMicro),
    refused: replay.refused,
    totalWaitMs: replay.totalWaitMs,
    servedMeteredUsd: microToUsd(replay.servedMeteredMicroUsd),
    savingUsd: microToUsd(replay.servedMeteredMicroUsd - spendMicro),
    unpricedTargetsSkipped: replay.unpricedTargetsSkipped,
    windows: replay.windows.map((window) => ({
      connectionId: window.connectionId,
      windowId: window.allowance.windowId,
      allowance: window.allowance.amount,
      unit: window.allowance.unit,
      origin: window.allowance.origin,
      exhaustedAt: window.exhaustions.map(iso),
      resetAt: window.resets.map(iso),
      peakUsedPercent: Math.round(window.peakUsedPercent * 100) / 100,
    })),
  };
}

/** The whole result as one plain JSON document (no trace content beyond usage counts). */
export function summarizeSimulation(result: SimulationResult): SimulationSummary {
  return {
    requests: result.requests,
    from: result.fromMs === null ? null : iso(result.fromMs),
    to: result.toMs === null ? null : iso(result.toMs),
    files: result.files,
    badLines: result.badLines.map((bad) => ({ ...bad })),
    allMeteredUsd: microToUsd(result.allMeteredMicroUsd),
    unpricedRequests: result.unpricedRequests,
    unpricedModels: result.unpricedModels,
    plans: result.plans.map((plan) => ({
      connectionId: plan.connectionId,
      provider: plan.provider,
      allowances: plan.allowances.map((allowance) => ({
        windowId: allowance.windowId,
        amount: allowance.amount,
        unit: allowance.unit,
        origin: allowance.origin,
      })),
      windowsWithoutAllowance: plan.windowsWithoutAllowance,
      neverOnSubscription: plan.neverOnSubscription,
    })),
    calibrations: result.calibrations.map((calibration) => ({
      target: calibration.allowance.target,
      windowId: calibration.allowance.windowId,
      amountUsd: Math.round(calibration.allowance.amount * 1e6) / 1e6,
      readings: calibration.readings,
    })),
    scenarios: result.scenarios.map((scenario) => ({
      label: scenario.label,
      rungBudgetUsd: { ...scenario.rungBudgetUsd },
      ids: scenario.replays.map(summarizeReplay),
    })),
  };
}
