import { connectionBillingCatalog } from "@planfirst/billing-catalog";
import {
  type ConnectionBillingVerdict,
  type ConnectionClassifier,
  createConnectionClassifier,
  type EffectiveOverage,
  effectiveOverage,
} from "@planfirst/connection-billing";
import type { QuotaState } from "@planfirst/quota-cache";
import type { EconomicTier } from "@planfirst/tier-resolver";
import { rungIndexOfBilling, rungIndexOfTier } from "./assign-rung";
import type { LadderCandidate, LadderOptions } from "./ladder-options";
import {
  assessQuota,
  DEFAULT_EXIT_CUTOFF_PERCENT,
  DEFAULT_MAX_STATE_AGE_MS,
  DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
  isOutcomeUsable,
  isStateUsable,
  QuotaOutcome,
  quotaThresholdPercent,
} from "./quota-usability";
import { type RungBudgetReading, readRungBudget } from "./rung-budget";

/** The two groupings: `auto/subscription` (fails closed) and `auto/thrifty` (fails open). */
export type LadderGrouping = "subscription" | "thrifty";

/** Why the engine let a connection in or kept it out. */
export const Decision = {
  In: 0,
  NotSubscription: 1,
  OverageNotHardStop: 2,
  Quota: 3,
  Budget: 4,
} as const;

/** One decision of the engine. */
export type Decision = (typeof Decision)[keyof typeof Decision];

/** Everything the engine looked at for one connection; filled only when explaining. */
export interface ConnectionDetail {
  connectionId: string | null;
  authType: string | null;
  billing: ConnectionBillingVerdict;
  rungIndex: number;
  tier: EconomicTier | null;
  state: QuotaState | undefined;
  quotaOutcome: QuotaOutcome;
  thresholdPercent: number;
  admitUnknownQuota: boolean;
  budget: RungBudgetReading | null;
  decision: Decision;
  /** The overage SUB2 judged: the catalog or operator value refined by live evidence (E3). */
  effective: EffectiveOverage;
  /** P1: a subscription with effective overage hard-stop and no fresh reading. */
  probeable: boolean;
}

/** Collects the engine's details for `explainPool`. */
export interface LadderRecorder {
  /** Per input candidate, the details of its connections in order. */
  connections: ConnectionDetail[][];
  /** Input position of each candidate the engine emitted, in output order. */
  sources: number[];
  /** Rung index of each candidate the engine emitted, in output order. */
  rungIndexes: number[];
  /** Epoch milliseconds the pool build was evaluated at. */
  nowMs: number;
  /** Settings in effect; `admitUnknownQuota` is always false for `subscription` (SUB1). */
  settings: {
    admitUnknownQuota: boolean;
    exitCutoffPercent: number;
    reentryMinRemainingPercent: number;
    maxStateAgeMs: number;
  };
  /** Budget readings of the cheap and premium rungs at the time of the build. */
  budgets: RungBudgetReading[];
}

interface LadderContext {
  readonly options: LadderOptions;
  readonly classifier: ConnectionClassifier;
  readonly strict: boolean;
  readonly admitUnknownQuota: boolean;
  readonly exitCutoffPercent: number;
  readonly reentryThresholdPercent: number;
  readonly maxStateAgeMs: number;
  readonly nowMs: number;
  /** Reused lookup key so classification allocates nothing. */
  readonly ref: { provider: string; authType: string | null };
  /** Budget readings of cheap and premium, read at most once per pool build. */
  readonly budgets: [RungBudgetReading | undefined, RungBudgetReading | undefined];
  tierOf: LadderCandidate | undefined;
  tier: EconomicTier;
  tierRungIndex: number;
}

/** Settings resolved once per pool build; `now()` is read exactly once. Internal. */
export function createLadderContext(
  options: LadderOptions,
  grouping: LadderGrouping,
): LadderContext {
  const strict = grouping === "subscription";
  const exitCutoffPercent = options.exitCutoffPercent ?? DEFAULT_EXIT_CUTOFF_PERCENT;
  return {
    options,
    classifier: createConnectionClassifier(options.catalog ?? connectionBillingCatalog),
    strict,
    // SUB1: the strict grouping never admits unverified quota, whatever the caller passes.
    admitUnknownQuota: strict ? false : (options.admitUnknownQuota ?? true),
    exitCutoffPercent,
    reentryThresholdPercent: quotaThresholdPercent(
      exitCutoffPercent,
      options.reentryMinRemainingPercent ?? DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
      true,
    ),
    maxStateAgeMs: options.maxStateAgeMs ?? DEFAULT_MAX_STATE_AGE_MS,
    nowMs: (options.now ?? Date.now)(),
    ref: { provider: "", authType: null },
    budgets: [undefined, undefined],
    tierOf: undefined,
    tier: "premium",
    tierRungIndex: 4,
  };
}

/** Budget reading of a paid rung (index 3 or 4), read once per pool build. */
function contextBudget(ctx: LadderContext, rungIndex: 3 | 4): RungBudgetReading {
  const slot = rungIndex - 3;
  let reading = ctx.budgets[slot];
  if (!reading) {
    reading = readRungBudget(rungIndex === 3 ? "cheap" : "premium", ctx.options);
    ctx.budgets[slot] = reading;
  }
  return reading;
}

function tierRungIndex(ctx: LadderContext, candidate: LadderCandidate): number {
  // The tier belongs to the (provider, model) of the candidate: resolve it once per candidate.
  if (ctx.tierOf !== candidate) {
    ctx.tier = ctx.options.resolveEconomicTier(candidate.provider, candidate.model);
    ctx.tierRungIndex = rungIndexOfTier(ctx.tier);
    ctx.tierOf = candidate;
  }
  return ctx.tierRungIndex;
}

/**
 * Judges one connection of a candidate under the context's grouping. Returns the rung index
 * (0–4) when the connection is in, a negative number when it is out. With `detail`, also
 * records everything it looked at (and reads the quota of connections it rules out on billing,
 * for display only; that never changes the decision).
 */
/**
 * E3: the connection's overage as routing uses it. Without an evidence resolver (or for a
 * candidate with no connection id) it is the catalog or operator value.
 */
function effectiveOverageOf(
  ctx: LadderContext,
  billing: ConnectionBillingVerdict,
  connectionId: string | null,
): EffectiveOverage {
  const resolve = ctx.options.resolveOverageEvidence;
  const evidence = resolve && connectionId !== null ? resolve(connectionId) : undefined;
  return effectiveOverage(billing, evidence, ctx.nowMs, ctx.maxStateAgeMs);
}

/** Quota outcomes that mean "no fresh reading" for P1: Q1, S2, Q3, Q4 and Q5. */
function isProbeableOutcome(outcome: QuotaOutcome): boolean {
  return (
    outcome === QuotaOutcome.NoState ||
    outcome === QuotaOutcome.ResetPassed ||
    outcome === QuotaOutcome.UnknownStatus ||
    outcome === QuotaOutcome.Stale ||
    outcome === QuotaOutcome.NoRemaining
  );
}

/**
 * P1/P5: whether a connection may take a probe: billing exactly `subscription`, effective
 * overage `hard-stop` (never anything that could bill), and no fresh reading. An exhausted
 * reading (Q2) is not probeable, however old: it waits for its reset or its mark to lapse.
 */
export function judgeProbeable(
  ctx: LadderContext,
  candidate: LadderCandidate,
  connectionId: string | null,
): boolean {
  const { options } = ctx;
  const authType = connectionId === null ? null : options.resolveAuthType(connectionId);
  ctx.ref.provider = candidate.provider;
  ctx.ref.authType = authType;
  const billing = ctx.classifier.classify(ctx.ref);
  if (billing.billing !== "subscription") return false;
  if (effectiveOverageOf(ctx, billing, connectionId).overage !== "hard-stop") return false;
  const state = options.resolveQuotaState(candidate.provider, connectionId, candidate.model);
  const threshold = state?.hasBeenExhausted ? ctx.reentryThresholdPercent : ctx.exitCutoffPercent;
  return isProbeableOutcome(assessQuota(state, ctx.maxStateAgeMs, threshold, ctx.nowMs));
}

function judgeConnection(
  ctx: LadderContext,
  candidate: LadderCandidate,
  connectionId: string | null,
  detail?: ConnectionDetail,
): number {
  const { options } = ctx;
  const authType = connectionId === null ? null : options.resolveAuthType(connectionId);
  ctx.ref.provider = candidate.provider;
  ctx.ref.authType = authType;
  const billing = ctx.classifier.classify(ctx.ref);
  let rung = rungIndexOfBilling(billing);
  const tierDecides = rung < 0;
  // The strict grouping only needs the rung of plan connections, unless explaining.
  if (tierDecides && (detail !== undefined || !ctx.strict)) rung = tierRungIndex(ctx, candidate);
  // Paid rungs have no plan quota: only a reading that shows them exhausted keeps them out.
  const admitUnknown = rung >= 3 ? true : ctx.admitUnknownQuota;

  let gate: Decision = Decision.In;
  let effective: EffectiveOverage | undefined;
  if (ctx.strict) {
    // SUB2: exactly a subscription, and one that stops rather than bills when it runs out, by
    // its effective overage: live evidence `on` excludes it whatever the catalog says (E3).
    if (billing.billing !== "subscription") gate = Decision.NotSubscription;
    else {
      effective = effectiveOverageOf(ctx, billing, connectionId);
      if (effective.overage !== "hard-stop") gate = Decision.OverageNotHardStop;
    }
  } else if (rung >= 3 && contextBudget(ctx, rung as 3 | 4).exhausted) {
    gate = Decision.Budget;
  }

  if (!detail) {
    if (gate !== Decision.In) return rung - 5;
    const state = options.resolveQuotaState(candidate.provider, connectionId, candidate.model);
    const threshold = state?.hasBeenExhausted ? ctx.reentryThresholdPercent : ctx.exitCutoffPercent;
    return isStateUsable(state, admitUnknown, ctx.maxStateAgeMs, threshold, ctx.nowMs)
      ? rung
      : rung - 5;
  }

  // Explaining: read the quota even where billing or budget already decided, for display.
  const state = options.resolveQuotaState(candidate.provider, connectionId, candidate.model);
  const threshold = state?.hasBeenExhausted ? ctx.reentryThresholdPercent : ctx.exitCutoffPercent;
  const outcome = assessQuota(state, ctx.maxStateAgeMs, threshold, ctx.nowMs);
  detail.connectionId = connectionId;
  detail.authType = authType;
  detail.billing = billing;
  detail.rungIndex = rung;
  detail.tier = tierDecides ? ctx.tier : null;
  detail.state = state;
  detail.quotaOutcome = outcome;
  detail.thresholdPercent = threshold;
  detail.admitUnknownQuota = admitUnknown;
  detail.budget = rung >= 3 ? contextBudget(ctx, rung as 3 | 4) : null;
  detail.decision =
    gate !== Decision.In
      ? gate
      : isOutcomeUsable(outcome, admitUnknown)
        ? Decision.In
        : Decision.Quota;
  detail.effective = effective ?? effectiveOverageOf(ctx, billing, connectionId);
  detail.probeable =
    billing.billing === "subscription" &&
    detail.effective.overage === "hard-stop" &&
    isProbeableOutcome(outcome);
  return detail.decision === Decision.In ? rung : rung - 5;
}

function newDetail(details: ConnectionDetail[] | undefined): ConnectionDetail | undefined {
  if (!details) return undefined;
  const detail = {} as ConnectionDetail;
  details.push(detail);
  return detail;
}

/**
 * Runs one grouping over a pool. Every connection of every candidate is judged individually; a
 * candidate keeps exactly the connections that passed, in their original order (ladder.md §10),
 * split into one candidate per rung (THR4); candidates with none are dropped (SUB4). Output is
 * sorted by rung, stable within a rung (THR3). When nothing is dropped, rewritten or reordered the
 * input array itself is returned (SUB5).
 */
export function runLadder<T extends LadderCandidate>(
  pool: readonly T[],
  options: LadderOptions,
  grouping: LadderGrouping,
  recorder?: LadderRecorder,
): readonly T[] {
  const ctx = createLadderContext(options, grouping);
  const buckets: T[][] = [[], [], [], [], []];
  const sourceBuckets: number[][] | undefined = recorder ? [[], [], [], [], []] : undefined;
  const codes: number[] = [];
  let changed = false;
  let highestRung = 0;

  for (let position = 0; position < pool.length; position++) {
    const candidate = pool[position]!;
    let details: ConnectionDetail[] | undefined;
    if (recorder) {
      details = [];
      recorder.connections.push(details);
    }
    const ids = candidate.connectionId == null ? candidate.allowedConnectionIds : undefined;
    let total = 1;
    let passed = 0;
    let passMask = 0;
    if (ids === undefined) {
      const code = judgeConnection(
        ctx,
        candidate,
        candidate.connectionId ?? null,
        newDetail(details),
      );
      if (code >= 0) {
        passed = 1;
        passMask = 1 << code;
      }
    } else {
      total = ids.length;
      for (let k = 0; k < total; k++) {
        const code = judgeConnection(ctx, candidate, ids[k]!, newDetail(details));
        codes[k] = code;
        if (code >= 0) {
          passed++;
          passMask |= 1 << code;
        }
      }
    }

    if (passed === total && passed > 0 && (passMask & (passMask - 1)) === 0) {
      // Every connection passed and all share one rung: the candidate goes through untouched.
      const rung = 31 - Math.clz32(passMask);
      buckets[rung]!.push(candidate);
      sourceBuckets?.[rung]?.push(position);
      if (rung < highestRung) changed = true;
      else highestRung = rung;
      continue;
    }
    changed = true;
    if (passed === 0 || ids === undefined) continue;
    for (let rung = 0; rung < 5; rung++) {
      if ((passMask & (1 << rung)) === 0) continue;
      const subset: string[] = [];
      for (let k = 0; k < total; k++) if (codes[k] === rung) subset.push(ids[k]!);
      buckets[rung]!.push({ ...candidate, allowedConnectionIds: subset });
      sourceBuckets?.[rung]?.push(position);
    }
  }

  if (recorder) {
    recorder.nowMs = ctx.nowMs;
    recorder.settings = {
      admitUnknownQuota: ctx.admitUnknownQuota,
      exitCutoffPercent: ctx.exitCutoffPercent,
      reentryMinRemainingPercent:
        options.reentryMinRemainingPercent ?? DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
      maxStateAgeMs: ctx.maxStateAgeMs,
    };
    recorder.budgets = [contextBudget(ctx, 3), contextBudget(ctx, 4)];
  }
  if (recorder && sourceBuckets) {
    sourceBuckets.forEach((positions, rung) => {
      for (const position of positions) {
        recorder.sources.push(position);
        recorder.rungIndexes.push(rung);
      }
    });
  }
  if (!changed) return pool;
  return buckets[0]!.concat(buckets[1]!, buckets[2]!, buckets[3]!, buckets[4]!);
}
