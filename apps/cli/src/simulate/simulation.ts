import type { GatewayConfig, RoutingTable } from "@planfirst/gateway";
import { costOf } from "@planfirst/spend-ledger";
import type { RungBudgetUsd } from "@planfirst/subscription-ladder";
import { type Calibration, calibrateAllowances } from "./calibrate";
import { createMeteredPriceLookup } from "./metered-price";
import { PLAN_WINDOWS_BY_PROVIDER, type PlanAllowance } from "./plan-allowance";
import { type IdReplay, replayTrace } from "./replay";
import type { BadLine, Trace } from "./trace-record";

/** One setting to replay: a label, budget overrides and plan allowance overrides. */
export interface Scenario {
  label: string;
  /** Paid-rung budgets replacing the config's, USD per budget window. */
  rungBudgetUsd?: RungBudgetUsd;
  /** Allowances replacing the ones given by the baseline for the same target and window. */
  allowances?: readonly PlanAllowance[];
}

/** Inputs of {@link simulate}. */
export interface SimulationInput {
  config: GatewayConfig;
  /** The gateway's routing table built from `config` (`createRoutingTable`). */
  table: RoutingTable;
  trace: Trace;
  /** Routing ids to replay, e.g. `["auto/subscription", "auto/thrifty"]`. */
  ids: readonly string[];
  /** Allowances from the command line (`--plan`); calibrated ones fill the gaps. */
  allowances: readonly PlanAllowance[];
  /** Settings to compare; one entry (the config as is) when not comparing. */
  scenarios: readonly Scenario[];
  /** Chart bucket length in ms; default chosen from the trace's span (about 120 buckets). */
  bucketMs?: number;
}

/** A plan connection the replay gave windows to, and where each allowance came from. */
export interface PlanSetup {
  connectionId: string;
  provider: string;
  allowances: PlanAllowance[];
  /** Windows the plan has (by provider) that no allowance covers. */
  windowsWithoutAllowance: string[];
  /** Why `auto/subscription` can never use it, when it cannot (its overage is not a verified hard stop). */
  neverOnSubscription: string | null;
}

/** One scenario's replays. */
export interface ScenarioResult {
  label: string;
  rungBudgetUsd: RungBudgetUsd;
  replays: IdReplay[];
}

/** Everything `planfirst simulate` prints. */
export interface SimulationResult {
  requests: number;
  fromMs: number | null;
  toMs: number | null;
  files: number;
  badLines: BadLine[];
  /** Cost of every request at its own model's metered price, integer micro-USD. */
  allMeteredMicroUsd: number;
  /** Requests whose model has no metered price (not in `allMeteredMicroUsd`). */
  unpricedRequests: number;
  unpricedModels: string[];
  plans: PlanSetup[];
  calibrations: Calibration[];
  scenarios: ScenarioResult[];
}

const HOUR_MS = 3_600_000;

/**
 * Replays a trace for every scenario and routing id (see `replayTrace`) and adds what the same
 * traffic costs all-metered. Allowances: an explicit `--plan` value wins; a window left without
 * one is calibrated from the trace's utilization readings when it has some; a plan window with
 * neither is listed in `windowsWithoutAllowance` (the command refuses to guess one).
 */
export async function simulate(input: SimulationInput): Promise<SimulationResult> {
  const { config, table, trace } = input;
  const meteredPriceOf = createMeteredPriceLookup(table.catalog.models);
  let allMeteredMicroUsd = 0;
  let unpricedRequests = 0;
  const unpricedModels = new Set<string>();
  for (const record of trace.records) {
    const price = meteredPriceOf(record.model);
    if (price) allMeteredMicroUsd += costOf(record, price);
    else {
      unpricedRequests += 1;
      unpricedModels.add(record.model);
    }
  }

  const plans: PlanSetup[] = [];
  const calibrations: Calibration[] = [];
  for (const [connectionId, connection] of table.connections) {
    if (connection.billing.billing !== "subscription") continue;
    const provider = connection.config.provider;
    const given = input.allowances.filter(
      (allowance) => allowance.target === connectionId || allowance.target === provider,
    );
    const allowances = dedupeByWindow(given);
    const expected = PLAN_WINDOWS_BY_PROVIDER[provider] ?? [];
    for (const found of calibrateAllowances(
      provider,
      connectionId,
      trace.readings,
      trace.records,
      meteredPriceOf,
    )) {
      if (allowances.some((allowance) => allowance.windowId === found.allowance.windowId)) continue;
      allowances.push(found.allowance);
      calibrations.push(found);
    }
    const overage = connection.billing.overage;
    plans.push({
      connectionId,
      provider,
      allowances,
      windowsWithoutAllowance: expected.filter(
        (windowId) => !allowances.some((allowance) => allowance.windowId === windowId),
      ),
      neverOnSubscription:
        overage === "hard-stop"
          ? null
          : `overage is "${overage}" in the catalog: vouch for the hard stop with an operator catalog entry to let auto/subscription use it`,
    });
  }

  const fromMs = trace.records[0]?.timeMs ?? null;
  const toMs = trace.records.at(-1)?.timeMs ?? null;
  const spanMs = fromMs === null || toMs === null ? 0 : toMs - fromMs;
  const bucketMs = input.bucketMs ?? Math.max(HOUR_MS, Math.ceil(spanMs / 120 / HOUR_MS) * HOUR_MS);

  const scenarios: ScenarioResult[] = [];
  for (const scenario of input.scenarios) {
    const rungBudgetUsd: RungBudgetUsd = {
      ...(config.subscriptionLadder.rungBudgetUsd as RungBudgetUsd),
      ...scenario.rungBudgetUsd,
    };
    const allowances = new Map<string, PlanAllowance[]>();
    for (const plan of plans) {
      const overrides = (scenario.allowances ?? []).filter(
        (allowance) => allowance.target === plan.connectionId || allowance.target === plan.provider,
      );
      allowances.set(plan.connectionId, dedupeByWindow([...plan.allowances, ...overrides]));
    }
    const replays: IdReplay[] = [];
    for (const id of input.ids) {
      replays.push(
        await replayTrace({
          config,
          table,
          id,
          records: trace.records,
          allowances,
          rungBudgetUsd,
          meteredPriceOf,
          bucketMs,
        }),
      );
    }
    scenarios.push({ label: scenario.label, rungBudgetUsd, replays });
  }

  return {
    requests: trace.records.length,
    fromMs,
    toMs,
    files: trace.files.length,
    badLines: trace.badLines,
    allMeteredMicroUsd,
    unpricedRequests,
    unpricedModels: [...unpricedModels].sort(),
    plans,
    calibrations,
    scenarios,
  };
}

/** Keeps the last allowance per window id (later entries override earlier ones), in first-seen order. */
function dedupeByWindow(allowances: readonly PlanAllowance[]): PlanAllowance[] {
  const byWindow = new Map<string, PlanAllowance>();
  for (const allowance of allowances) byWindow.set(allowance.windowId, allowance);
  return [...byWindow.values()];
}

/** Paid-rung spend of a replay, integer micro-USD. */
export function totalSpendMicroUsd(replay: IdReplay): number {
  return (Object.values(replay.spendByRungMicroUsd) as number[]).reduce((a, b) => a + b, 0);
}

/** Requests a replay served, all rungs. */
export function totalServed(replay: IdReplay): number {
  return (Object.values(replay.servedByRung) as number[]).reduce((a, b) => a + b, 0);
}
