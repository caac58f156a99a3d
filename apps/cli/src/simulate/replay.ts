import type { ModelPrice } from "@planfirst/billing-catalog";
import {
  ANONYMOUS_CLIENT,
  buildTargets,
  type DispatchTarget,
  type GatewayConfig,
  type PoolLiveState,
  type RoutingTable,
} from "@planfirst/gateway";
import { createMemoryQuotaStore, createQuotaCache, type QuotaWindow } from "@planfirst/quota-cache";
import {
  costOf,
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  microToUsd,
} from "@planfirst/spend-ledger";
import type { LadderOptions, LadderRung, RungBudgetUsd } from "@planfirst/subscription-ladder";
import type { PlanAllowance } from "./plan-allowance";
import {
  advancePlanWindow,
  createPlanWindow,
  type PlanWindowState,
  planWindowReading,
  remainingPercentOf,
  usePlanWindow,
} from "./plan-window";
import type { TraceRecord } from "./trace-record";

/** What one routing id did with the whole trace. */
export interface IdReplay {
  id: string;
  requests: number;
  /** Requests served per rung. */
  servedByRung: Record<LadderRung, number>;
  /** Spend per rung in integer micro-USD (only paid rungs spend). */
  spendByRungMicroUsd: Record<LadderRung, number>;
  /** Requests nothing could serve (`auto/subscription` fails closed; spent budgets). */
  refused: number;
  /**
   * Time during which requests were being refused, in ms: the union of the intervals from each
   * refusal to the moment a plan window it waited on reset. Null when a refused request had
   * nothing to wait for (no plan could ever take it).
   */
  totalWaitMs: number | null;
  /** Paid targets passed over because the catalog has no price for them. */
  unpricedTargetsSkipped: number;
  /** What the served requests would have cost at their own model's metered price, micro-USD. */
  servedMeteredMicroUsd: number;
  /** Plan windows, with their resets and exhaustions. */
  windows: PlanWindowState[];
  /** Time series for the chart. */
  series: ReplaySeries;
}

/** Per-bucket counts and end-of-bucket remaining percent, for the chart. */
export interface ReplaySeries {
  startMs: number;
  bucketMs: number;
  /** One entry per bucket: requests per rung, and refusals. */
  buckets: { byRung: Record<LadderRung, number>; refused: number }[];
  /** Per plan window (same order as `windows`): remaining percent at each bucket's end. */
  remaining: number[][];
}

/** Inputs of {@link replayTrace}. */
export interface ReplayInput {
  config: GatewayConfig;
  table: RoutingTable;
  /** The routing id to replay (`auto/subscription`, `auto/thrifty`, `auto/coding:thrifty`…). */
  id: string;
  records: readonly TraceRecord[];
  /** Allowances per plan connection (already matched to connection ids). */
  allowances: ReadonlyMap<string, readonly PlanAllowance[]>;
  /** Budgets per paid rung, USD per budget window (the config's, with overrides applied). */
  rungBudgetUsd: RungBudgetUsd;
  /** Metered price of a logged model (the API-equivalent value of plan usage). */
  meteredPriceOf: (model: string) => ModelPrice | undefined;
  /** Chart bucket length in ms. */
  bucketMs: number;
  /** Told each step as it happens; absent = nobody watches. */
  observer?: ReplayObserver;
}

/**
 * What a replay lets a caller watch, step by step, at the simulated instant the step happens.
 * The replay reads nothing back, so an observer cannot change its outcome.
 */
export interface ReplayObserver {
  /** The quota cache took `windows` as the reading of a plan connection at `atMs` (epoch ms). */
  reading?(connectionId: string, windows: readonly QuotaWindow[], atMs: number): void;
  /** The targets `record` is offered, in dispatch order, before the first is tried. */
  targets?(record: TraceRecord, targets: readonly DispatchTarget[]): void;
}

function emptyByRung(): Record<LadderRung, number> {
  return { subscription: 0, keyless: 0, free: 0, cheap: 0, premium: 0 };
}

/**
 * Replays `records` through the real ladder on a simulated clock set to each request's time:
 * plan windows feed the real quota cache (memory store) as readings, paid rungs reserve and
 * settle on the real spend ledger (memory store) with the config's budget window, and the targets
 * are the gateway's own `buildTargets` over those readings and budgets. The first target in
 * ladder order serves; a paid target whose reservation is refused falls through to the next
 * (THR5). Deterministic: nothing reads the wall clock.
 *
 * Reservations are the request's actual cost, which the trace knows; the gateway reserves a
 * worst case, so it refuses at a budget's edge a little sooner and spends at most this much.
 */
export async function replayTrace(input: ReplayInput): Promise<IdReplay> {
  const { config, table, id, records } = input;
  const resolution = table.resolve(id);
  if (!resolution.ok) throw new Error(resolution.message);
  const ladder = config.subscriptionLadder;
  let nowMs = records[0]?.timeMs ?? 0;
  const now = () => nowMs;

  const quotaCache = createQuotaCache({
    store: createMemoryQuotaStore(),
    now,
    ttlMs: ladder.maxStateAgeMs,
    exitCutoffPercent: ladder.exitCutoffPercent,
    reentryMinRemainingPercent: ladder.reentryMinRemainingPercent,
  });
  const ledger = createSpendLedger({
    store: createMemorySpendStore(),
    budgetsUsd: { ...input.rungBudgetUsd },
    window: ladder.budgetWindow,
    timeZone: ladder.budgetTimeZone,
    now,
  });
  await ledger.ready();

  const planConnectionIds = [
    ...new Set(
      resolution.groups
        .filter((group) => group.rung === "subscription")
        .flatMap((group) => group.connectionIds),
    ),
  ];
  const windows: PlanWindowState[] = [];
  const windowsOf = new Map<string, PlanWindowState[]>();
  for (const connectionId of planConnectionIds) {
    const own = (input.allowances.get(connectionId) ?? []).map((allowance) =>
      createPlanWindow(connectionId, allowance),
    );
    windowsOf.set(connectionId, own);
    windows.push(...own);
  }
  const lastObservedMs = new Map<string, number>();
  const lastSignature = new Map<string, string>();
  const dirty = new Set<string>(planConnectionIds);
  // Bumped on every reading the quota cache takes; the pool is rebuilt when it changes.
  let quotaVersion = 0;
  const observe = (connectionId: string, own: readonly PlanWindowState[]) => {
    const readings = own.map((window) =>
      planWindowReading(window, nowMs, ladder.exitCutoffPercent),
    );
    quotaCache.observe(connectionId, readings);
    lastObservedMs.set(connectionId, nowMs);
    quotaVersion += 1;
    input.observer?.reading?.(connectionId, readings, nowMs);
  };

  const options: LadderOptions = {
    ...table.ladderBase,
    rungBudgetUsd: input.rungBudgetUsd,
    resolveQuotaState: (provider, connectionId, model) =>
      connectionId === null ? undefined : quotaCache.get(provider, connectionId, model),
    resolveRungSpendUsd: (rung) => ledger.rungSpendUsd(rung),
    now,
  };
  // The replay has no upstream failures to model, so nothing cools down: a spent plan window is
  // kept out by its reading, as in the gateway.
  const live: PoolLiveState = {
    quotaState: (provider, connectionId, model) => quotaCache.get(provider, connectionId, model),
    isCoolingDown: () => false,
  };

  const servedByRung = emptyByRung();
  const spendByRungMicroUsd = emptyByRung();
  let refused = 0;
  let unpricedTargetsSkipped = 0;
  let servedMeteredMicroUsd = 0;
  let totalWaitMs: number | null = 0;
  let blockedUntilMs = Number.NEGATIVE_INFINITY;

  const startMs = records[0]?.timeMs ?? 0;
  const series: ReplaySeries = { startMs, bucketMs: input.bucketMs, buckets: [], remaining: [] };
  for (let i = 0; i < windows.length; i++) series.remaining.push([]);
  // Closes every bucket that ends at or before `timeMs`, sampling each window's remaining
  // percent at the bucket's end. Runs before the windows are advanced to `timeMs`, so a window
  // that reset inside a gap is shown full from its reset on, and exhausted until then.
  const closeBucketsBefore = (timeMs: number) => {
    const index = Math.floor((timeMs - startMs) / input.bucketMs);
    while (series.buckets.length <= index) {
      const at = series.buckets.length;
      if (at > 0) sampleRemaining(at - 1, startMs + at * input.bucketMs);
      series.buckets.push({ byRung: emptyByRung(), refused: 0 });
    }
    return series.buckets[index]!;
  };
  const sampleRemaining = (bucket: number, endMs: number) => {
    windows.forEach((window, w) => {
      const reset = window.resetAtMs !== null && window.resetAtMs <= endMs;
      series.remaining[w]![bucket] = reset ? 100 : remainingPercentOf(window);
    });
  };

  let poolKey = "";
  const keyOf = () =>
    `${quotaVersion}|${ledger.currentWindowKey()}|${ledger.isExhausted("cheap")}|${ledger.isExhausted("premium")}`;
  let targets: readonly DispatchTarget[] = [];
  for (const record of records) {
    nowMs = record.timeMs;
    const bucket = closeBucketsBefore(nowMs);
    for (const connectionId of planConnectionIds) {
      const own = windowsOf.get(connectionId)!;
      for (const window of own) {
        if (advancePlanWindow(window, nowMs)) dirty.add(connectionId);
      }
      // A plan with no allowance is never observed, so the ladder treats it as unverified,
      // exactly as the gateway would.
      if (own.length === 0) continue;
      // The ladder reads a window only through "above the exit cutoff?", "above the re-entry
      // floor?" and its reset instant, so a new reading is taken when one of those changes.
      const signature = dirty.has(connectionId)
        ? own.map((window) => routingSignature(window, ladder)).join("|")
        : lastSignature.get(connectionId);
      dirty.delete(connectionId);
      if (signature !== lastSignature.get(connectionId)) {
        observe(connectionId, own);
        lastSignature.set(connectionId, signature ?? "");
      }
    }
    // The ladder's inputs are the quota readings, each paid rung's budget state and the budget
    // window; the pool is rebuilt through the real ladder whenever one of them changed.
    if (keyOf() !== poolKey) {
      // In the gateway every plan response carries a reading, so the ladder always sees a fresh
      // one: refresh any that would be stale (Q4) before the pool is rebuilt.
      for (const connectionId of planConnectionIds) {
        const own = windowsOf.get(connectionId)!;
        const last = lastObservedMs.get(connectionId);
        if (own.length > 0 && (last === undefined || nowMs - last >= ladder.maxStateAgeMs / 2)) {
          observe(connectionId, own);
        }
      }
      // The trace is the operator's own traffic: one client that may use every connection.
      targets = buildTargets(
        table,
        resolution.groups,
        resolution.grouping,
        ANONYMOUS_CLIENT,
        live,
        options,
      );
      poolKey = keyOf();
    }
    input.observer?.targets?.(record, targets);
    let served = false;
    for (const target of targets) {
      const connectionId = target.connection.config.id;
      if (target.rung === "cheap" || target.rung === "premium") {
        const price = target.group.price;
        if (!price) {
          unpricedTargetsSkipped += 1;
          continue;
        }
        const costMicroUsd = costOf(record, price);
        const reservation = await ledger.reserve({
          rung: target.rung,
          connectionId,
          model: target.model,
          maxCostUsd: microToUsd(costMicroUsd),
          requestId: "simulated",
        });
        if (isRefusal(reservation)) continue;
        await ledger.settle(reservation, microToUsd(costMicroUsd), {
          model: target.model,
          inputTokens: record.inputTokens,
          outputTokens: record.outputTokens,
          cachedInputTokens: record.cachedInputTokens,
          cacheWriteTokens: record.cacheWriteTokens,
        });
        spendByRungMicroUsd[target.rung] += costMicroUsd;
      } else if (target.rung === "subscription") {
        const own = windowsOf.get(connectionId) ?? [];
        for (const window of own) {
          usePlanWindow(
            window,
            planUsage(window.allowance, record, target.model, input.meteredPriceOf),
            nowMs,
            ladder.exitCutoffPercent,
          );
        }
        if (own.length > 0) dirty.add(connectionId);
      }
      servedByRung[target.rung] += 1;
      bucket.byRung[target.rung] += 1;
      const ownPrice = input.meteredPriceOf(record.model);
      if (ownPrice) servedMeteredMicroUsd += costOf(record, ownPrice);
      served = true;
      break;
    }
    if (served) continue;
    refused += 1;
    bucket.refused += 1;
    const comebackMs = planComebackMs(planConnectionIds, windowsOf, ladder.exitCutoffPercent);
    if (comebackMs === null || totalWaitMs === null) {
      totalWaitMs = null;
    } else if (comebackMs > nowMs) {
      totalWaitMs += Math.max(0, comebackMs - Math.max(nowMs, blockedUntilMs));
      blockedUntilMs = Math.max(blockedUntilMs, comebackMs);
    }
  }
  if (series.buckets.length > 0) {
    const last = series.buckets.length - 1;
    sampleRemaining(last, startMs + (last + 1) * input.bucketMs);
  }

  return {
    id,
    requests: records.length,
    servedByRung,
    spendByRungMicroUsd,
    refused,
    totalWaitMs,
    unpricedTargetsSkipped,
    servedMeteredMicroUsd,
    windows,
    series,
  };
}

/** What the ladder can tell apart about a window: the two thresholds and the reset. */
function routingSignature(
  window: PlanWindowState,
  ladder: { exitCutoffPercent: number; reentryMinRemainingPercent: number },
): string {
  const remaining = remainingPercentOf(window);
  return `${remaining > ladder.exitCutoffPercent ? 1 : 0}${remaining > ladder.reentryMinRemainingPercent ? 1 : 0}${window.resetAtMs ?? "-"}`;
}

/** What one request uses of a plan window: API-equivalent USD, or input + output tokens. */
function planUsage(
  allowance: PlanAllowance,
  record: TraceRecord,
  servedModel: string,
  meteredPriceOf: (model: string) => ModelPrice | undefined,
): number {
  if (allowance.unit === "tokens") return record.inputTokens + record.outputTokens;
  const price = meteredPriceOf(servedModel) ?? meteredPriceOf(record.model);
  // An unpriced model cannot be valued in dollars: it books nothing, and the summary lists the
  // unpriced models so the operator knows the plan figures leave them out.
  return price ? microToUsd(costOf(record, price)) : 0;
}

/**
 * Earliest instant a plan connection could take requests again: for each connection, the
 * latest reset among its exhausted windows; the earliest over connections. Null when no plan
 * connection has an exhausted window to wait for (nothing a wait would fix).
 */
function planComebackMs(
  connectionIds: readonly string[],
  windowsOf: ReadonlyMap<string, readonly PlanWindowState[]>,
  exitCutoffPercent: number,
): number | null {
  let best: number | null = null;
  for (const connectionId of connectionIds) {
    let latest: number | null = null;
    for (const window of windowsOf.get(connectionId) ?? []) {
      if (window.resetAtMs === null || remainingPercentOf(window) > exitCutoffPercent) continue;
      latest = Math.max(latest ?? 0, window.resetAtMs);
    }
    if (latest !== null) best = best === null ? latest : Math.min(best, latest);
  }
  return best;
}
