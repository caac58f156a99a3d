import { isStateStaleForReset, type QuotaState } from "@planfirst/quota-cache";
import { parseIsoInstantMs } from "./iso-instant";

/** Default exit cutoff: a plan window at or below 2 % remaining is exhausted (Q6). */
export const DEFAULT_EXIT_CUTOFF_PERCENT = 2;
/** Default re-entry floor after an exhaustion: above 5 % remaining (Q6, H2). */
export const DEFAULT_REENTRY_MIN_REMAINING_PERCENT = 5;
/** Default age after which a quota reading is stale: 180 000 ms (Q4). */
export const DEFAULT_MAX_STATE_AGE_MS = 180_000;

/** The quota inputs of `LadderOptions`. */
export interface QuotaUsabilityOptions {
  /** Admit a connection whose quota cannot be verified (Q1, Q3–Q5). Default true. */
  admitUnknownQuota?: boolean;
  /** Remaining percent at or below which a window is exhausted. Default 2. */
  exitCutoffPercent?: number;
  /** Remaining percent a window must exceed to come back after an exhaustion. Default 5. */
  reentryMinRemainingPercent?: number;
  /** Age in milliseconds after which a reading is stale (equal is fresh). Default 180000. */
  maxStateAgeMs?: number;
  /** Clock in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** Which rule of ladder.md §5–§6 decided a quota reading. */
export type QuotaRule = "Q1" | "S2" | "Q2" | "Q3" | "Q4" | "Q5" | "Q6" | "P3";

/** Outcome codes of `assessQuota`, in rule order; numbers keep the decision path allocation-free. */
export const QuotaOutcome = {
  NoState: 0,
  ResetPassed: 1,
  Exhausted: 2,
  UnknownStatus: 3,
  Stale: 4,
  NoRemaining: 5,
  AboveThreshold: 6,
  AtOrBelowThreshold: 7,
  /** P3: a fresh `served` verification (a probe's 2xx), no percentage known. */
  Served: 8,
} as const;

/** One outcome of `assessQuota`. */
export type QuotaOutcome = (typeof QuotaOutcome)[keyof typeof QuotaOutcome];

const RULE_OF_OUTCOME: readonly QuotaRule[] = [
  "Q1",
  "S2",
  "Q2",
  "Q3",
  "Q4",
  "Q5",
  "Q6",
  "Q6",
  "P3",
];

/** P3: the reading carries a probe's `served` verification (see `QuotaWindow.served`). */
function isServed(state: QuotaState): boolean {
  const windows = state.windows;
  if (!Array.isArray(windows)) return false;
  for (const window of windows) if (window?.served === true) return true;
  return false;
}

/** The rule that produced `outcome`. */
export function quotaRuleOf(outcome: QuotaOutcome): QuotaRule {
  return RULE_OF_OUTCOME[outcome]!;
}

/** Threshold (percent) a reading must exceed: the exit cutoff, or the re-entry floor once latched. */
export function quotaThresholdPercent(
  exitCutoffPercent: number,
  reentryMinRemainingPercent: number,
  hasBeenExhausted: boolean,
): number {
  return hasBeenExhausted
    ? Math.max(reentryMinRemainingPercent, exitCutoffPercent)
    : exitCutoffPercent;
}

function hasResetPassed(state: QuotaState, nowMs: number): boolean {
  const { resetAt } = state;
  // The cheap parse settles the common future-reset case; the rule itself stays quota-cache's.
  return !!resetAt && !(parseIsoInstantMs(resetAt) > nowMs) && isStateStaleForReset(state, nowMs);
}

function checkedAtMs(state: QuotaState): number {
  return typeof state.checkedAt === "string" ? parseIsoInstantMs(state.checkedAt) : Number.NaN;
}

/** Applies Q1, S2, Q2–Q6 in order and says which one decided. */
export function assessQuota(
  state: QuotaState | undefined,
  maxStateAgeMs: number,
  thresholdPercent: number,
  nowMs: number,
): QuotaOutcome {
  if (!state) return QuotaOutcome.NoState;
  // A window whose reset has passed no longer exists, whatever it said (S2).
  if (hasResetPassed(state, nowMs)) return QuotaOutcome.ResetPassed;
  if (state.status === "exhausted") return QuotaOutcome.Exhausted;
  if (state.status !== "available") return QuotaOutcome.UnknownStatus;
  const checkedMs = checkedAtMs(state);
  if (Number.isNaN(checkedMs) || nowMs - checkedMs > maxStateAgeMs) return QuotaOutcome.Stale;
  const remaining = state.remainingPercent;
  if (remaining === null || remaining === undefined) {
    return isServed(state) ? QuotaOutcome.Served : QuotaOutcome.NoRemaining;
  }
  // NaN and negatives fail the strict comparison.
  return remaining > thresholdPercent
    ? QuotaOutcome.AboveThreshold
    : QuotaOutcome.AtOrBelowThreshold;
}

/**
 * `isOutcomeUsable(assessQuota(...), admitUnknownQuota)` for the decision path: the same rules,
 * but the reset instant (S2) is only read when it could change the answer, since every S2
 * reading is treated as unknown.
 */
export function isStateUsable(
  state: QuotaState | undefined,
  admitUnknownQuota: boolean,
  maxStateAgeMs: number,
  thresholdPercent: number,
  nowMs: number,
): boolean {
  if (!state) return admitUnknownQuota;
  let usable: boolean;
  if (state.status === "exhausted") {
    usable = false;
  } else if (state.status !== "available") {
    return admitUnknownQuota;
  } else {
    const checkedMs = checkedAtMs(state);
    if (Number.isNaN(checkedMs) || nowMs - checkedMs > maxStateAgeMs) return admitUnknownQuota;
    const remaining = state.remainingPercent;
    if (remaining === null || remaining === undefined) {
      if (!isServed(state)) return admitUnknownQuota;
      usable = true;
    } else {
      usable = remaining > thresholdPercent;
    }
  }
  if (usable === admitUnknownQuota) return usable;
  return hasResetPassed(state, nowMs) ? admitUnknownQuota : usable;
}

/** Whether an outcome admits the connection; unverifiable outcomes defer to `admitUnknownQuota`. */
export function isOutcomeUsable(outcome: QuotaOutcome, admitUnknownQuota: boolean): boolean {
  switch (outcome) {
    case QuotaOutcome.AboveThreshold:
    case QuotaOutcome.Served:
      return true;
    case QuotaOutcome.Exhausted:
    case QuotaOutcome.AtOrBelowThreshold:
      return false;
    default:
      return admitUnknownQuota;
  }
}

/**
 * Whether a quota reading lets a connection serve (ladder.md §5), in rule order: no state →
 * `admitUnknownQuota` (Q1); a reading whose `resetAt` has passed is stale whatever its age (S2)
 * → `admitUnknownQuota`; `exhausted` → false even when old (Q2); `unknown` status → admit (Q3);
 * `checkedAt` unparseable or older than `maxStateAgeMs` → admit (Q4); null remaining → usable
 * when the state carries a probe's `served` window (P3), else admit (Q5); otherwise `remainingPercent` must exceed the threshold strictly: `exitCutoffPercent`, or
 * `max(reentryMinRemainingPercent, exitCutoffPercent)` when `hasBeenExhausted` (Q6, H2).
 *
 * @param hasBeenExhausted the hysteresis latch; defaults to `state.hasBeenExhausted`
 */
export function isQuotaUsable(
  state: QuotaState | undefined | null,
  options: QuotaUsabilityOptions = {},
  hasBeenExhausted: boolean = state?.hasBeenExhausted ?? false,
): boolean {
  const threshold = quotaThresholdPercent(
    options.exitCutoffPercent ?? DEFAULT_EXIT_CUTOFF_PERCENT,
    options.reentryMinRemainingPercent ?? DEFAULT_REENTRY_MIN_REMAINING_PERCENT,
    hasBeenExhausted,
  );
  const outcome = assessQuota(
    state ?? undefined,
    options.maxStateAgeMs ?? DEFAULT_MAX_STATE_AGE_MS,
    threshold,
    (options.now ?? Date.now)(),
  );
  return isOutcomeUsable(outcome, options.admitUnknownQuota ?? true);
}
