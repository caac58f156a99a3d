import type { CooldownBook } from "./cooldown-book";
import { assertNumberOption } from "./errors";
import { createMemoryQuotaStore } from "./memory-store";
import type { OverageObservation } from "./overage-evidence";
import { createOverageEvidenceBook } from "./overage-evidence-book";
import { createProbeLeases, type ProbeLease } from "./probe-leases";
import type { QuotaState, QuotaWindow } from "./quota-state";
import type { QuotaStore } from "./quota-store";
import { createQuotaWindows, type KnownReset, type ObserveFailureOptions } from "./quota-windows";
import type { UpstreamFailure } from "./upstream-failure";

/** Options of {@link createQuotaCache}. */
export interface QuotaCacheOptions {
  /** Where readings live. Default: a new memory store (this process only). */
  store?: QuotaStore;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** S1: a reading is fresh for this long after its `observedAt`, in ms. Default 180 000. */
  ttlMs?: number;
  /** H1: remaining percent at or below which a window latches as exhausted. Default 2. */
  exitCutoffPercent?: number;
  /** H2: a fresh reading above this remaining percent clears the latch. Default 5. */
  reentryMinRemainingPercent?: number;
  /**
   * The cooldown book, when wired: `needsRefresh` skips connections in an account-wide cooldown,
   * and a fresh reading showing headroom releases quota cooldowns early
   * (`CooldownBook.releaseOnHeadroom`).
   */
  cooldowns?: CooldownBook;
}

/**
 * Live quota state per connection and window. Every method is synchronous and never throws,
 * except the probe lease calls, which return promises that never reject.
 */
export interface QuotaCache {
  /**
   * Merges readings for a connection by (windowId, scope model): a newer `observedAt` replaces
   * the held reading, an older one is ignored. Updates each window's latch (H1–H2).
   */
  observe(connectionId: string, windows: readonly QuotaWindow[]): void;
  /**
   * Records a quota failure (`window_exhausted`, `credits_exhausted`) as an exhausted window,
   * scoped to the model when the failure is, with the failure's reset (or retry instant); latches
   * H1. `rate_limited`, `overloaded`, `auth_invalid`, `money_refusal` and `misconfigured` mark
   * no quota; `client_refused` (about the client program, not the connection) changes nothing.
   */
  observeFailure(
    connectionId: string,
    failure: UpstreamFailure,
    options?: ObserveFailureOptions,
  ): void;
  /**
   * Quota state of a connection for a model (ladder.md §5), or undefined when there is no
   * reading or every applicable reading is older than `ttlMs` (S1). `provider` is accepted to fit
   * the ladder's resolver; connection ids are unique, so lookups are by connection.
   */
  get(provider: string, connectionId: string, model?: string): QuotaState | undefined;
  /**
   * Connections whose reading is missing (for ids passed in), expired (newest reading older than
   * `ttlMs`) or past a window's reset (S2), minus those in an account-wide cooldown. Without ids:
   * every connection the store holds readings for.
   */
  needsRefresh(connectionIds?: readonly string[]): string[];
  /**
   * Stores live overage evidence (ladder.md §14) for the connection, in the same store as the
   * readings (so on Redis it reaches every replica through the same pub/sub path). The store
   * keeps the newest `on` and the newest `off` apart, so a newer `off` never hides a fresh `on`
   * (E3: `on` wins while both are fresh) and an older one is ignored. A Copilot `overageCount`
   * higher than the last one held also records an `on` (`copilot-overage-count`). Malformed input
   * is ignored.
   */
  observeEvidence(connectionId: string, observation: OverageObservation): void;
  /**
   * The evidence held for the connection: at most the newest `on` and the newest `off`, newest
   * first (`on` first on a tie); `[]` when none. Hand it to `effectiveOverage` of
   * `@planfirst/connection-billing`, which decides freshness; the cache applies no rule here.
   */
  overageEvidence(connectionId: string): OverageObservation[];
  /**
   * P3: records that a hard-stop plan answered 2xx with no quota reading: a `served` window
   * (see `QuotaWindow.served`), scoped to `model` when given, observed now. `get` then reads
   * `available` with `remainingPercent` null until the next failure (`observeFailure` of any
   * kind), the next real reading (`observe`) or `ttlMs`.
   */
  recordServed(connectionId: string, model?: string): void;
  /**
   * P1: takes the probe lease of the connection for `ttlMs` (ms; use the connection's timeout),
   * so only one probe is in flight: across replicas on Redis (`SET NX PX`), per process on memory
   * and SQLite. Resolves to the lease, or null when another probe holds it. Never rejects.
   */
  tryAcquireProbe(connectionId: string, ttlMs: number): Promise<ProbeLease | null>;
  /**
   * True while this process holds a probe lease of the connection, or was refused one within
   * the refused lease's `ttlMs` (another replica's probe). For S2b's `Retry-After: 1`.
   */
  isProbeInFlight(connectionId: string): boolean;
  /**
   * S2a: every live window's reset instant, soonest first, for the given connections (default:
   * every connection with readings). Includes resets already passed but still reported (they
   * make the reading stale, S2), so a timer set from them fires at once.
   */
  knownResets(connectionIds?: readonly string[]): KnownReset[];
}

/**
 * Creates the quota cache. Windows keep their own scope, reset and observation
 * time. Model scope: a window scoped to a model gates only the models that scope applies to
 * (`scopeAppliesToModel`: case-insensitive, by family, so `opus` gates `claude-opus-4-1`); a call
 * without a model sees account-wide windows only.
 *
 * Which windows apply to `get`:
 * - a window past its reset is still reported (so `isStateStaleForReset` fires when it binds,
 *   and `needsRefresh` lists the connection) for `ttlMs` after that reset, then no longer applies:
 *   nothing sticky outlives a reset (S5), and its latch is kept for the next reading (H2);
 * - a failure mark without a reset (a headerless 429, pitfall 9) applies for `ttlMs` only; the
 *   cooldown book decides when to retry, no reset is invented.
 */
export function createQuotaCache(options: QuotaCacheOptions = {}): QuotaCache {
  const store = options.store ?? createMemoryQuotaStore();
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 180_000;
  const band = {
    exitCutoffPercent: options.exitCutoffPercent ?? 2,
    reentryMinRemainingPercent: options.reentryMinRemainingPercent ?? 5,
  };
  const cooldowns = options.cooldowns;
  assertNumberOption("ttlMs", ttlMs, 0, Number.MAX_SAFE_INTEGER);
  assertNumberOption("exitCutoffPercent", band.exitCutoffPercent, 0, 100);
  assertNumberOption("reentryMinRemainingPercent", band.reentryMinRemainingPercent, 0, 100);

  const windows = createQuotaWindows({ store, now, ttlMs, band, cooldowns });
  const evidence = createOverageEvidenceBook(store);
  const probes = createProbeLeases(store, now);

  return {
    observe: windows.observe,
    observeFailure: windows.observeFailure,
    get: windows.get,
    needsRefresh: windows.needsRefresh,
    observeEvidence: evidence.observeEvidence,
    overageEvidence: evidence.overageEvidence,
    recordServed: windows.recordServed,
    tryAcquireProbe: probes.tryAcquireProbe,
    isProbeInFlight: probes.isProbeInFlight,
    knownResets: windows.knownResets,
  };
}
