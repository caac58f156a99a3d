import { randomUUID } from "node:crypto";
import type { CooldownBook } from "./cooldown-book";
import { assertNumberOption } from "./errors";
import { nextExhaustionLatch } from "./hysteresis";
import { createMemoryQuotaStore } from "./memory-store";
import { scopeAppliesToModel } from "./model-scope";
import { type OverageObservation, parseOverageObservation } from "./overage-evidence";
import type { QuotaState, QuotaWindow } from "./quota-state";
import type { QuotaStore } from "./quota-store";
import { isPlausibleInstant } from "./time-plausibility";
import type { UpstreamFailure } from "./upstream-failure";
import {
  normaliseWindow,
  parseWindowRecord,
  type WindowRecord,
  windowRecordKey,
} from "./window-record";

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

/** Options of {@link QuotaCache.observeFailure}. */
export interface ObserveFailureOptions {
  /** The model the failing request was for; scopes the mark when the failure is model-scoped. */
  model?: string;
}

/** A probe lease taken with {@link QuotaCache.tryAcquireProbe} (rule P1). */
export interface ProbeLease {
  connectionId: string;
  /** Random id of this lease; only its holder can release it. */
  holder: string;
  /** ISO instant the lease lapses by itself if never released. */
  expiresAt: string;
  /** Gives the lease back (after the probe's answer was observed). Never rejects; idempotent. */
  release(): Promise<void>;
}

/** One known reset instant of a connection's window, for the gateway's reset timers (S2a). */
export interface KnownReset {
  connectionId: string;
  windowId: string;
  /** Scope model, when the window gates one model only. */
  model?: string;
  /** ISO-8601 reset instant. */
  resetAt: string;
  /** Where the reading came from (`header`, `endpoint`, `failure`…). */
  source: string;
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
   * no quota.
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

const QUOTA_FAILURES = new Set(["window_exhausted", "credits_exhausted"]);

/**
 * A repeat of held evidence (same kind, source and detail) observed less than this after it is
 * not written again: a connection that says the same thing on every response would otherwise
 * cost a store write per request. Freshness is judged over minutes (`maxStateAgeMs`), so the held
 * observation is at most this much older than it could be; a change of kind is always written.
 */
export const EVIDENCE_REWRITE_INTERVAL_MS = 5_000;

function repeatsHeldEvidence(
  held: readonly OverageObservation[],
  observation: OverageObservation,
): boolean {
  const observedMs = Date.parse(observation.observedAt);
  return held.some((h) => {
    if (
      h.evidence !== observation.evidence ||
      h.source !== observation.source ||
      h.detail !== observation.detail ||
      h.overageCount !== observation.overageCount
    ) {
      return false;
    }
    const ageMs = observedMs - Date.parse(h.observedAt);
    return ageMs >= 0 && ageMs < EVIDENCE_REWRITE_INTERVAL_MS;
  });
}

function parseMs(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

function sameScope(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return !a && !b;
  return scopeAppliesToModel(a, b) || scopeAppliesToModel(b, a);
}

/** Orders windows so the binding one comes first: lowest remaining, then latest reset. */
function compareBinding(a: QuotaWindow, b: QuotaWindow): number {
  const effective = (w: QuotaWindow) =>
    w.status === "exhausted" ? 0 : (w.remainingPercent ?? Number.POSITIVE_INFINITY);
  const byRemaining = effective(a) - effective(b);
  if (byRemaining !== 0 && !Number.isNaN(byRemaining)) return byRemaining;
  // Equal remaining: the window that returns last keeps the connection out longest.
  const reset = (w: QuotaWindow) => parseMs(w.resetAt) ?? Number.POSITIVE_INFINITY;
  const byReset = reset(b) - reset(a);
  return Number.isNaN(byReset) ? 0 : byReset;
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

  // Stored records are replaced, never mutated, so each is parsed once per cache.
  const parsed = new WeakMap<object, WindowRecord | null>();
  const parsedEvidence = new WeakMap<object, OverageObservation | null>();

  function records(connectionId: string): { key: string; record: WindowRecord }[] {
    const out: { key: string; record: WindowRecord }[] = [];
    for (const stored of store.list("windows", connectionId)) {
      let record = parsed.get(stored);
      if (record === undefined) {
        record = parseWindowRecord(stored.value) ?? null;
        parsed.set(stored, record);
      }
      if (record) out.push({ key: stored.key, record });
    }
    return out;
  }

  /** Whether a stored window still says anything at `nowMs`, scope aside. */
  function isLive(record: WindowRecord, nowMs: number): boolean {
    const resetMs = parseMs(record.window.resetAt);
    if (resetMs !== null && nowMs > resetMs + ttlMs) return false;
    if (record.origin !== "reading" && resetMs === null) {
      return nowMs - Date.parse(record.window.observedAt) <= ttlMs;
    }
    return true;
  }

  function appliesToModel(window: QuotaWindow, model: string | undefined): boolean {
    const scopeModel = window.scope?.model;
    if (!scopeModel) return true;
    return model !== undefined && scopeAppliesToModel(scopeModel, model);
  }

  function releaseCooldowns(connectionId: string): void {
    if (!cooldowns) return;
    const models = new Set<string | undefined>([undefined]);
    for (const cooldown of cooldowns.activeCooldowns(connectionId)) {
      if (cooldown.model) models.add(cooldown.model);
    }
    for (const model of models) {
      const state = get("", connectionId, model);
      cooldowns.releaseOnHeadroom(connectionId, state, model ? { model } : {});
    }
  }

  function observe(connectionId: string, windows: readonly QuotaWindow[]): void {
    const nowMs = now();
    const held = records(connectionId);
    const unnamedMarks = held.filter((entry) => entry.record.origin === "unnamed-mark");
    const superseded = new Set<string>();
    for (const input of windows) {
      const normalised = normaliseWindow(input);
      if (!normalised) continue;
      // A reset no window allows (ten years ahead) reads as unknown.
      const window = isPlausibleInstant(
        normalised.resetAt,
        nowMs,
        normalised.windowId,
        normalised.windowSeconds,
      )
        ? normalised
        : { ...normalised, resetAt: null };
      const observedMs = Date.parse(window.observedAt);
      const key = windowRecordKey(window.windowId, window.scope?.model);
      const previous = held.find((entry) => entry.key === key)?.record;
      if (previous && Date.parse(previous.window.observedAt) > observedMs) continue;
      // An unnamed mark older than this reading, in the same scope, is replaced by it; its
      // latch carries over so a quota 429 still counts for H1.
      let inheritedLatch = false;
      for (const mark of unnamedMarks) {
        if (
          sameScope(mark.record.window.scope?.model, window.scope?.model) &&
          Date.parse(mark.record.window.observedAt) < observedMs
        ) {
          inheritedLatch ||= mark.record.latched;
          superseded.add(mark.key);
        }
      }
      const fresh = nowMs - observedMs <= ttlMs;
      const latched = nextExhaustionLatch(
        (previous?.latched ?? false) || inheritedLatch,
        window,
        band,
        fresh,
      );
      const record: WindowRecord = { window, latched, origin: "reading" };
      store.put("windows", { connectionId, key, rev: observedMs, value: record });
    }
    // A real reading replaces a probe's `served` verification (P3).
    if (windows.some((input) => normaliseWindow(input) !== undefined)) {
      for (const entry of held) if (entry.record.window.served) superseded.add(entry.key);
    }
    for (const key of superseded) store.remove("windows", connectionId, key);
    releaseCooldowns(connectionId);
  }

  function dropServed(connectionId: string): void {
    for (const entry of records(connectionId)) {
      if (entry.record.window.served) store.remove("windows", connectionId, entry.key);
    }
  }

  function recordServed(connectionId: string, model?: string): void {
    const nowMs = now();
    const scopeModel = model?.trim() || undefined;
    const window: QuotaWindow = {
      windowId: "served",
      remainingPercent: null,
      resetAt: null,
      status: "ok",
      source: "probe",
      observedAt: new Date(nowMs).toISOString(),
      served: true,
    };
    if (scopeModel) window.scope = { model: scopeModel };
    const key = windowRecordKey("served", scopeModel);
    const record: WindowRecord = { window, latched: false, origin: "reading" };
    store.put("windows", { connectionId, key, rev: nowMs, value: record });
  }

  function observeFailure(
    connectionId: string,
    failure: UpstreamFailure,
    failureOptions: ObserveFailureOptions = {},
  ): void {
    // Any failure ends a probe's `served` verification (P3).
    dropServed(connectionId);
    if (!QUOTA_FAILURES.has(failure.kind)) return;
    const nowMs = now();
    const scopeModel = failure.scope
      ? (failure.scope.model ?? failureOptions.model)?.trim() || undefined
      : undefined;
    const windowId =
      failure.windowId || (failure.kind === "credits_exhausted" ? "credits" : "exhausted");
    const key = windowRecordKey(windowId, scopeModel);
    const previous = records(connectionId).find((entry) => entry.key === key)?.record;
    // A time beyond what the window allows is no reset at all.
    const plausible = (iso: string | null) =>
      isPlausibleInstant(iso, nowMs, windowId, previous?.window.windowSeconds) ? iso : null;
    const resetMs = parseMs(plausible(failure.resetAt)) ?? parseMs(plausible(failure.retryAt));
    const window: QuotaWindow = {
      windowId,
      remainingPercent: 0,
      resetAt: resetMs !== null && resetMs > nowMs ? new Date(resetMs).toISOString() : null,
      status: "exhausted",
      source: "failure",
      observedAt: new Date(nowMs).toISOString(),
    };
    if (scopeModel) window.scope = { model: scopeModel };
    if (previous?.window.windowSeconds) window.windowSeconds = previous.window.windowSeconds;
    const record: WindowRecord = {
      window,
      latched: true,
      origin: failure.windowId ? "named-mark" : "unnamed-mark",
    };
    store.put("windows", { connectionId, key, rev: nowMs, value: record });
  }

  function get(_provider: string, connectionId: string, model?: string): QuotaState | undefined {
    const nowMs = now();
    const applicable = records(connectionId)
      .map((entry) => entry.record)
      .filter((record) => isLive(record, nowMs) && appliesToModel(record.window, model));
    if (applicable.length === 0) return undefined;
    const observedMs = applicable.map((record) => Date.parse(record.window.observedAt));
    const newestMs = Math.max(...observedMs);
    if (nowMs - newestMs > ttlMs) return undefined;
    const ordered = [...applicable].sort((a, b) => compareBinding(a.window, b.window));
    const binding = ordered[0]!.window;
    const exhausted =
      binding.status === "exhausted" ||
      (binding.remainingPercent !== null && binding.remainingPercent <= 0);
    const remainingPercent =
      binding.remainingPercent === null && binding.status === "exhausted"
        ? 0
        : binding.remainingPercent;
    // P3: a probe's 2xx verified headroom even though no percentage is known.
    const served = applicable.some((record) => record.window.served === true);
    return {
      status: exhausted
        ? "exhausted"
        : remainingPercent === null && !served
          ? "unknown"
          : "available",
      remainingPercent,
      resetAt: binding.resetAt,
      // The oldest applicable reading: a state is only as fresh as its stalest window.
      checkedAt: new Date(Math.min(...observedMs)).toISOString(),
      // Any latched window keeps the state latched, even when another window reads lower.
      hasBeenExhausted: applicable.some((record) => record.latched),
      windows: ordered.map((record) => ({
        ...record.window,
        ...(record.window.scope ? { scope: { ...record.window.scope } } : {}),
      })),
    };
  }

  function isDue(connectionId: string, nowMs: number): boolean {
    const live = records(connectionId)
      .map((entry) => entry.record)
      .filter((record) => isLive(record, nowMs));
    const readings = live.filter((record) => record.origin === "reading");
    if (readings.length === 0) return true;
    const newestMs = Math.max(...readings.map((record) => Date.parse(record.window.observedAt)));
    if (nowMs - newestMs > ttlMs) return true;
    return live.some((record) => {
      const resetMs = parseMs(record.window.resetAt);
      return resetMs !== null && resetMs <= nowMs;
    });
  }

  function needsRefresh(connectionIds?: readonly string[]): string[] {
    const nowMs = now();
    const ids = [...new Set(connectionIds ?? store.connectionIds("windows"))];
    return ids.filter((id) => !cooldowns?.isCoolingDown(id) && isDue(id, nowMs));
  }

  function evidenceRecords(connectionId: string): OverageObservation[] {
    const out: OverageObservation[] = [];
    for (const stored of store.list("evidence", connectionId)) {
      let observation = parsedEvidence.get(stored);
      if (observation === undefined) {
        observation = parseOverageObservation(stored.value) ?? null;
        parsedEvidence.set(stored, observation);
      }
      if (observation) out.push(observation);
    }
    return out;
  }

  function putEvidence(connectionId: string, observation: OverageObservation): void {
    store.put("evidence", {
      connectionId,
      key: observation.evidence,
      rev: Date.parse(observation.observedAt),
      value: observation,
    });
  }

  function observeEvidence(connectionId: string, input: OverageObservation): void {
    const observation = parseOverageObservation(input);
    if (!observation) return;
    const held = evidenceRecords(connectionId);
    const count = observation.overageCount;
    const heldCount = count === undefined ? undefined : highestOverageCount(held);
    if (count !== undefined && heldCount !== undefined && count > heldCount) {
      // Premium requests were billed since the last reading: proof the account bills (E1).
      putEvidence(connectionId, {
        evidence: "on",
        observedAt: observation.observedAt,
        source: "copilot-overage-count",
        detail: `overage_count ${heldCount} → ${count}`,
        overageCount: count,
      });
    }
    if (!repeatsHeldEvidence(held, observation)) putEvidence(connectionId, observation);
  }

  function overageEvidence(connectionId: string): OverageObservation[] {
    return evidenceRecords(connectionId).sort((a, b) => {
      const byTime = Date.parse(b.observedAt) - Date.parse(a.observedAt);
      if (byTime !== 0) return byTime;
      return a.evidence === b.evidence ? 0 : a.evidence === "on" ? -1 : 1;
    });
  }

  // Probes this process holds or was refused, until their lease would lapse (isProbeInFlight).
  const probesInFlight = new Map<string, number>();

  async function tryAcquireProbe(connectionId: string, ttlMs: number): Promise<ProbeLease | null> {
    const nowMs = now();
    const leaseMs = Number.isFinite(ttlMs) && ttlMs > 0 ? Math.ceil(ttlMs) : 1;
    const holder = randomUUID();
    const name = `probe:${connectionId}`;
    let taken = false;
    try {
      taken = await store.acquireLease(name, holder, leaseMs, nowMs);
    } catch {
      taken = false;
    }
    probesInFlight.set(connectionId, nowMs + leaseMs);
    if (!taken) return null;
    let released = false;
    return {
      connectionId,
      holder,
      expiresAt: new Date(nowMs + leaseMs).toISOString(),
      async release() {
        if (released) return;
        released = true;
        probesInFlight.delete(connectionId);
        try {
          await store.releaseLease(name, holder);
        } catch {
          // The lease lapses by itself at expiresAt.
        }
      },
    };
  }

  function isProbeInFlight(connectionId: string): boolean {
    const untilMs = probesInFlight.get(connectionId);
    if (untilMs === undefined) return false;
    if (untilMs > now()) return true;
    probesInFlight.delete(connectionId);
    return false;
  }

  function knownResets(connectionIds?: readonly string[]): KnownReset[] {
    const nowMs = now();
    const ids = [...new Set(connectionIds ?? store.connectionIds("windows"))];
    const out: KnownReset[] = [];
    for (const connectionId of ids) {
      for (const { record } of records(connectionId)) {
        const { window } = record;
        if (!window.resetAt || !isLive(record, nowMs)) continue;
        const reset: KnownReset = {
          connectionId,
          windowId: window.windowId,
          resetAt: window.resetAt,
          source: window.source,
        };
        if (window.scope?.model) reset.model = window.scope.model;
        out.push(reset);
      }
    }
    return out.sort((a, b) => Date.parse(a.resetAt) - Date.parse(b.resetAt));
  }

  return {
    observe,
    observeFailure,
    get,
    needsRefresh,
    observeEvidence,
    overageEvidence,
    recordServed,
    tryAcquireProbe,
    isProbeInFlight,
    knownResets,
  };
}

/** The highest `overageCount` among `held`, or undefined when none carries one. */
function highestOverageCount(held: readonly OverageObservation[]): number | undefined {
  let highest: number | undefined;
  for (const observation of held) {
    const count = observation.overageCount;
    if (count !== undefined && (highest === undefined || count > highest)) highest = count;
  }
  return highest;
}
