/** Scope of a quota window: absent = the whole connection; `model` = that model only. */
export interface QuotaWindowScope {
  /** Model id or model family the window applies to (matched case-insensitively). */
  model?: string;
}

/** One quota window as last seen for a connection, normalised (see quota-signals.md). */
export interface QuotaWindow {
  /** Stable id of the window: `5h`, `7d`, `7d:opus`, `rpm`, `tpm`, `daily`, `monthly`, `credits`… */
  windowId: string;
  /** Absent = account-wide window. */
  scope?: QuotaWindowScope;
  /** 0..100, remaining (not used); null when unknown. */
  remainingPercent: number | null;
  /** ISO-8601 instant at which the window resets; null when unknown. */
  resetAt: string | null;
  /** Length of the window in seconds, when known. */
  windowSeconds?: number;
  /** What the provider said of this window. */
  status: "ok" | "warning" | "exhausted";
  /** Where the reading came from. */
  source: string;
  /** ISO-8601 instant of the response that carried the reading. */
  observedAt: string;
  /**
   * Percent used exactly as the provider reported it, unclamped: above 100 means paid overage is
   * being billed (Claude `7d_oi` at 1.02), and a Copilot `percent_remaining` below 0 shows here as
   * more than 100 used. Absent when the provider reports no used share.
   */
  rawUsedPercent?: number;
  /**
   * P3: a `served` verification (`QuotaCache.recordServed`): a hard-stop plan answered 2xx with
   * no quota reading, so it has headroom now. Such a window has id `served`, `remainingPercent`
   * null, status `ok` and source `probe`; the state it is in reads `available` (not `unknown`)
   * and is fresh by its `checkedAt`, until the next failure, a real reading, or `ttlMs`.
   */
  served?: true;
}

/**
 * Quota state of one connection (and model, where windows are model-scoped), as the ladder
 * reads it (ladder.md §5).
 */
export interface QuotaState {
  status: "available" | "exhausted" | "unknown";
  /** 0..100 remaining in the binding (lowest) applicable window; null when unknown. */
  remainingPercent: number | null;
  /** ISO-8601 reset of the binding window; null when unknown. */
  resetAt: string | null;
  /** ISO-8601 instant the reading was observed. */
  checkedAt: string;
  /** Hysteresis latch (rules H1–H2): set on exhaustion, cleared by a fresh reading above the re-entry floor. */
  hasBeenExhausted: boolean;
  /** Every window seen for the connection that applies to the requested model. */
  windows: QuotaWindow[];
}

/**
 * Rule S2: a reading whose own `resetAt` has passed describes a window that no longer exists,
 * so it is stale regardless of its age. No state, or no or unparseable `resetAt` → false.
 *
 * @param nowMs epoch milliseconds
 */
export function isStateStaleForReset(state: QuotaState | undefined | null, nowMs: number): boolean {
  if (!state?.resetAt) return false;
  const resetMs = Date.parse(state.resetAt);
  if (Number.isNaN(resetMs)) return false;
  return resetMs <= nowMs;
}

/**
 * Rule S4: narrow a cooldown so it ends no later than the upstream's reset instant. Never
 * extends a cooldown. Absent, unparseable or past `resetAt` → the cooldown unchanged.
 *
 * @param cooldownMs proposed cooldown length in milliseconds
 * @param resetAt ISO-8601 reset instant reported by the upstream
 * @param nowMs epoch milliseconds
 * @returns the cooldown length in milliseconds, at most `cooldownMs`
 */
export function clampCooldownToReset(
  cooldownMs: number,
  resetAt: string | null | undefined,
  nowMs: number,
): number {
  if (!resetAt) return cooldownMs;
  const resetMs = Date.parse(resetAt);
  if (Number.isNaN(resetMs) || resetMs <= nowMs) return cooldownMs;
  return Math.min(cooldownMs, resetMs - nowMs);
}
