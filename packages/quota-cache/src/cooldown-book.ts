import { assertNumberOption } from "./errors";
import { createMemoryQuotaStore } from "./memory-store";
import { normaliseScopeModel, scopeAppliesToModel } from "./model-scope";
import { clampCooldownToReset, isStateStaleForReset, type QuotaState } from "./quota-state";
import type { QuotaStore } from "./quota-store";
import { isPlausibleInstant } from "./time-plausibility";
import type { UpstreamFailure, UpstreamFailureKind } from "./upstream-failure";

/** Options of {@link createCooldownBook}. All durations in milliseconds. */
export interface CooldownBookOptions {
  /** Where cooldowns live. Default: a new memory store (this process only). */
  store?: QuotaStore;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** First backoff step for transient failures. Default 1 000. */
  baseMs?: number;
  /**
   * Largest backoff step (15 min by default). Caps only our own backoff: an upstream
   * `Retry-After` or reset is honoured however long its window allows (quota-signals.md §13, pitfall 5).
   */
  capMs?: number;
  /**
   * Cooldown for `credits_exhausted` when the upstream gives no reset. Default 3 600 000 (1 h):
   * a hard stop that needs a top-up, so the cap of a retry backoff would only burn requests, yet
   * a topped-up account is found again within the hour (sooner when a fresh reading shows
   * headroom, see `releaseOnHeadroom`).
   */
  creditsCooldownMs?: number;
  /**
   * Cooldown for `auth_invalid`. Default 86 400 000 (24 h): the credential needs re-auth, which
   * retrying cannot do; `succeed()` (after re-auth or a successful call) clears it at once.
   */
  authCooldownMs?: number;
  /**
   * Cooldown for `misconfigured`. Default 900 000 (15 min): only an operator's change fixes the
   * connection, so a retry per request would only repeat the refusal, yet a fix made on the
   * provider's side (or a config reload) should not stay unseen for long.
   */
  misconfiguredCooldownMs?: number;
  /** `releaseOnHeadroom` frees a quota cooldown when a fresh reading is above this. Default 5. */
  releaseAboveRemainingPercent?: number;
}

/** Options of `fail` and `succeed`. */
export interface CooldownScopeOptions {
  /** The model of the request (the target); scopes the cooldown when the failure is model-scoped. */
  model?: string;
}

/** One cooldown as written. Instants are ISO-8601; `durationMs` in milliseconds. */
export interface Cooldown {
  connectionId: string;
  /** Scope model (lower-cased); null = the whole connection, every model. */
  model: string | null;
  kind: UpstreamFailureKind;
  /** When the failure was recorded. */
  since: string;
  /** When the cooldown ends. */
  until: string;
  durationMs: number;
  /** Consecutive failures counted for backoff on this connection and scope. */
  attempts: number;
  /** The upstream's reset instant, when it gave one. */
  resetAt: string | null;
  /** The failure's `detail`, the problem in words; null when it named none. */
  reason: string | null;
}

/** Cooldowns per connection and model. Every method is synchronous and never throws. */
export interface CooldownBook {
  /**
   * Writes the cooldown for a failure and returns it:
   * - `rate_limited`, `overloaded`: exponential backoff `min(capMs, baseMs·2^(attempts−1))`,
   *   never shorter than the upstream's `retryAt`; `overloaded` cools only the target model and
   *   marks no quota;
   * - `window_exhausted`: until the exact `resetAt`; without one (a headerless 429) the backoff;
   * - `credits_exhausted`: until `resetAt`, else `creditsCooldownMs`;
   * - `auth_invalid`: `authCooldownMs`, always account-wide;
   * - `misconfigured`: `misconfiguredCooldownMs`, account-wide unless the failure names a model
   *   (an integration that may not use that model);
   * - `money_refusal`: the backoff, like a transient failure (the connection bills for this
   *   traffic; the ladder keeps it off `auto/subscription` through its overage evidence).
   * - `client_refused`: nothing is written (the client program was refused, not the
   *   connection); the cooldown returned ended as it began and counts no attempt.
   * A `retryAt` or `resetAt` beyond what the failure's window allows (its length plus skew;
   * 7 days when it names no window) is implausible and ignored, so a `retry-after: 999999999`
   * cools for the bounded backoff, not for years. Every duration goes through
   * `clampCooldownToReset` (S4) when the upstream gave a reset. A longer cooldown already in force
   * on the same scope is kept.
   */
  fail(connectionId: string, failure: UpstreamFailure, options?: CooldownScopeOptions): Cooldown;
  /**
   * Clears the account-wide cooldown and its attempt counter and, with a model, the cooldowns
   * scoped to that model. Other models' cooldowns stay.
   */
  succeed(connectionId: string, options?: CooldownScopeOptions): void;
  /** True while an account-wide cooldown, or one scoped to `model`, is in force. */
  isCoolingDown(connectionId: string, model?: string): boolean;
  /** ISO end of the latest cooldown in force for the connection (and model); null when none. */
  cooldownUntil(connectionId: string, model?: string): string | null;
  /** Every cooldown in force on the connection, whatever its scope. */
  activeCooldowns(connectionId: string): Cooldown[];
  /**
   * Early release: ends the quota cooldowns (`window_exhausted`, `credits_exhausted`) that
   * `state` covers (account-wide ones, and with a model those scoped to it) when `state` is a
   * reading taken after the cooldown began that shows headroom: status available, remaining
   * above `releaseAboveRemainingPercent`, not latched, not past its reset. Returns how many were
   * released.
   */
  releaseOnHeadroom(
    connectionId: string,
    state: QuotaState | undefined,
    options?: CooldownScopeOptions,
  ): number;
}

interface CooldownRecord extends Omit<Cooldown, "connectionId"> {}

const KINDS: readonly UpstreamFailureKind[] = [
  "rate_limited",
  "window_exhausted",
  "credits_exhausted",
  "overloaded",
  "auth_invalid",
  "money_refusal",
  "misconfigured",
  "client_refused",
];
const QUOTA_KINDS = new Set<UpstreamFailureKind>(["window_exhausted", "credits_exhausted"]);
const ACCOUNT_KEY = "account";

function cooldownKey(model: string | null): string {
  return model ? `model:${model}` : ACCOUNT_KEY;
}

function parseCooldownRecord(value: unknown): CooldownRecord | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const raw = value as Record<string, unknown>;
  if (!KINDS.includes(raw.kind as UpstreamFailureKind)) return undefined;
  if (typeof raw.since !== "string" || Number.isNaN(Date.parse(raw.since))) return undefined;
  if (typeof raw.until !== "string" || Number.isNaN(Date.parse(raw.until))) return undefined;
  return {
    model: typeof raw.model === "string" && raw.model ? raw.model : null,
    kind: raw.kind as UpstreamFailureKind,
    since: raw.since,
    until: raw.until,
    durationMs: typeof raw.durationMs === "number" ? raw.durationMs : 0,
    attempts: typeof raw.attempts === "number" && raw.attempts >= 0 ? raw.attempts : 0,
    resetAt:
      typeof raw.resetAt === "string" && !Number.isNaN(Date.parse(raw.resetAt))
        ? raw.resetAt
        : null,
    reason: typeof raw.reason === "string" && raw.reason ? raw.reason : null,
  };
}

/** Milliseconds from now to an ISO instant; null when absent, unparseable or not in the future. */
function msUntil(iso: string | null | undefined, nowMs: number): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || ms <= nowMs) return null;
  return ms - nowMs;
}

/**
 * Creates the cooldown book. Cooldowns are kept per connection and scope; an
 * account-wide one covers every model. Expired cooldowns read as absent; their attempt counter
 * is remembered for `capMs` after they end, so failures that keep coming back off further.
 */
export function createCooldownBook(options: CooldownBookOptions = {}): CooldownBook {
  const store = options.store ?? createMemoryQuotaStore();
  const now = options.now ?? Date.now;
  const baseMs = options.baseMs ?? 1_000;
  const capMs = options.capMs ?? 15 * 60_000;
  const creditsCooldownMs = options.creditsCooldownMs ?? 60 * 60_000;
  const authCooldownMs = options.authCooldownMs ?? 24 * 60 * 60_000;
  const misconfiguredCooldownMs = options.misconfiguredCooldownMs ?? 15 * 60_000;
  const releaseAbove = options.releaseAboveRemainingPercent ?? 5;
  assertNumberOption("baseMs", baseMs, 1, Number.MAX_SAFE_INTEGER);
  assertNumberOption("capMs", capMs, baseMs, Number.MAX_SAFE_INTEGER);
  assertNumberOption("creditsCooldownMs", creditsCooldownMs, 0, Number.MAX_SAFE_INTEGER);
  assertNumberOption("authCooldownMs", authCooldownMs, 0, Number.MAX_SAFE_INTEGER);
  assertNumberOption(
    "misconfiguredCooldownMs",
    misconfiguredCooldownMs,
    0,
    Number.MAX_SAFE_INTEGER,
  );
  assertNumberOption("releaseAboveRemainingPercent", releaseAbove, 0, 100);

  // Stored records are replaced, never mutated, so each is parsed once per book.
  const parsed = new WeakMap<object, CooldownRecord | null>();

  function all(connectionId: string): { key: string; record: CooldownRecord }[] {
    const out: { key: string; record: CooldownRecord }[] = [];
    for (const stored of store.list("cooldowns", connectionId)) {
      let record = parsed.get(stored);
      if (record === undefined) {
        record = parseCooldownRecord(stored.value) ?? null;
        parsed.set(stored, record);
      }
      if (record) out.push({ key: stored.key, record });
    }
    return out;
  }

  function toCooldown(connectionId: string, record: CooldownRecord): Cooldown {
    return { connectionId, ...record };
  }

  function covers(record: CooldownRecord, model: string | undefined): boolean {
    if (record.model === null) return true;
    return model !== undefined && scopeAppliesToModel(record.model, model);
  }

  function inForce(connectionId: string, model: string | undefined, nowMs: number) {
    return all(connectionId).filter(
      ({ record }) => Date.parse(record.until) > nowMs && covers(record, model),
    );
  }

  /** Drops records whose cooldown ended more than `capMs` ago (attempt memory over). */
  function prune(connectionId: string, nowMs: number): void {
    for (const { key, record } of all(connectionId)) {
      if (Date.parse(record.until) + capMs < nowMs) store.remove("cooldowns", connectionId, key);
    }
  }

  function scopeOf(failure: UpstreamFailure, model: string | undefined): string | null {
    if (failure.kind === "auth_invalid") return null;
    if (failure.kind === "overloaded") {
      return normaliseScopeModel(failure.scope?.model ?? model) ?? null;
    }
    if (!failure.scope) return null;
    return normaliseScopeModel(failure.scope.model ?? model) ?? null;
  }

  function fail(
    connectionId: string,
    failure: UpstreamFailure,
    scopeOptions: CooldownScopeOptions = {},
  ): Cooldown {
    const nowMs = now();
    prune(connectionId, nowMs);
    const model = scopeOf(failure, scopeOptions.model);
    const key = cooldownKey(model);
    const previous = all(connectionId).find((entry) => entry.key === key)?.record;
    if (failure.kind === "client_refused") return notCooled(connectionId, model, failure, nowMs);
    const attempts = (previous?.attempts ?? 0) + 1;
    const backoffMs = Math.min(capMs, baseMs * 2 ** Math.min(attempts - 1, 52));
    const plausible = (iso: string | null) =>
      isPlausibleInstant(iso, nowMs, failure.windowId) ? iso : null;
    const retryAt = plausible(failure.retryAt);
    const resetAt = plausible(failure.resetAt);
    const retryMs = msUntil(retryAt, nowMs);
    const resetMs = msUntil(resetAt, nowMs);
    let durationMs: number;
    switch (failure.kind) {
      case "window_exhausted":
        durationMs = resetMs ?? Math.max(backoffMs, retryMs ?? 0);
        break;
      case "credits_exhausted":
        durationMs = resetMs ?? Math.max(creditsCooldownMs, retryMs ?? 0);
        break;
      case "auth_invalid":
        durationMs = authCooldownMs;
        break;
      case "misconfigured":
        durationMs = misconfiguredCooldownMs;
        break;
      default:
        durationMs = Math.max(backoffMs, retryMs ?? 0);
    }
    durationMs = clampCooldownToReset(durationMs, resetAt, nowMs);
    let record: CooldownRecord = {
      model,
      kind: failure.kind,
      since: new Date(nowMs).toISOString(),
      until: new Date(nowMs + durationMs).toISOString(),
      durationMs,
      attempts,
      resetAt: resetMs === null ? null : new Date(nowMs + resetMs).toISOString(),
      reason: failure.detail ?? null,
    };
    if (previous && Date.parse(previous.until) > Date.parse(record.until)) {
      record = { ...previous, attempts };
    }
    store.put("cooldowns", { connectionId, key, rev: nowMs, value: record });
    return toCooldown(connectionId, record);
  }

  function succeed(connectionId: string, scopeOptions: CooldownScopeOptions = {}): void {
    const nowMs = now();
    for (const { key, record } of all(connectionId)) {
      const scoped =
        record.model !== null &&
        scopeOptions.model !== undefined &&
        scopeAppliesToModel(record.model, scopeOptions.model);
      if (record.model === null || scoped) store.remove("cooldowns", connectionId, key);
    }
    prune(connectionId, nowMs);
  }

  function isCoolingDown(connectionId: string, model?: string): boolean {
    return inForce(connectionId, model, now()).length > 0;
  }

  function cooldownUntil(connectionId: string, model?: string): string | null {
    let latest: string | null = null;
    for (const { record } of inForce(connectionId, model, now())) {
      if (latest === null || Date.parse(record.until) > Date.parse(latest)) latest = record.until;
    }
    return latest;
  }

  function activeCooldowns(connectionId: string): Cooldown[] {
    const nowMs = now();
    return all(connectionId)
      .filter(({ record }) => Date.parse(record.until) > nowMs)
      .map(({ record }) => toCooldown(connectionId, record));
  }

  function releaseOnHeadroom(
    connectionId: string,
    state: QuotaState | undefined,
    scopeOptions: CooldownScopeOptions = {},
  ): number {
    const nowMs = now();
    if (state?.status !== "available" || state.hasBeenExhausted) return 0;
    if (state.remainingPercent === null || !(state.remainingPercent > releaseAbove)) return 0;
    if (isStateStaleForReset(state, nowMs)) return 0;
    const checkedMs = Date.parse(state.checkedAt);
    if (Number.isNaN(checkedMs)) return 0;
    let released = 0;
    for (const { key, record } of inForce(connectionId, scopeOptions.model, nowMs)) {
      if (!QUOTA_KINDS.has(record.kind)) continue;
      // Only a reading taken after the failure can say the window has room again.
      if (checkedMs <= Date.parse(record.since)) continue;
      store.remove("cooldowns", connectionId, key);
      released++;
    }
    return released;
  }

  return { fail, succeed, isCoolingDown, cooldownUntil, activeCooldowns, releaseOnHeadroom };
}

/**
 * The answer of `fail` to a `client_refused` failure, which is about the client program and not
 * the connection: a cooldown that ended as it began, recorded nowhere, counting no attempt.
 */
function notCooled(
  connectionId: string,
  model: string | null,
  failure: UpstreamFailure,
  nowMs: number,
): Cooldown {
  const at = new Date(nowMs).toISOString();
  return {
    connectionId,
    model,
    kind: failure.kind,
    since: at,
    until: at,
    durationMs: 0,
    attempts: 0,
    resetAt: null,
    reason: failure.detail ?? null,
  };
}
