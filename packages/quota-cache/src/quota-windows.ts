import type { CooldownBook } from "./cooldown-book";
import { type HysteresisBand, nextExhaustionLatch } from "./hysteresis";
import { scopeAppliesToModel } from "./model-scope";
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

/** Options of {@link QuotaCache.observeFailure}. */
export interface ObserveFailureOptions {
  /** The model the failing request was for; scopes the mark when the failure is model-scoped. */
  model?: string;
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

const QUOTA_FAILURES = new Set(["window_exhausted", "credits_exhausted"]);

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

/** The quota reading part of the quota cache (see `QuotaCache` for each method). */
interface QuotaWindows {
  observe(connectionId: string, windows: readonly QuotaWindow[]): void;
  observeFailure(
    connectionId: string,
    failure: UpstreamFailure,
    options?: ObserveFailureOptions,
  ): void;
  get(provider: string, connectionId: string, model?: string): QuotaState | undefined;
  needsRefresh(connectionIds?: readonly string[]): string[];
  recordServed(connectionId: string, model?: string): void;
  knownResets(connectionIds?: readonly string[]): KnownReset[];
}

/** What the quota readings are judged with (see `QuotaCacheOptions`). */
interface QuotaWindowsOptions {
  store: QuotaStore;
  now: () => number;
  ttlMs: number;
  band: HysteresisBand;
  cooldowns: CooldownBook | undefined;
}

/**
 * The quota readings and failure marks of every connection, kept in `store`'s `windows`
 * bucket; `createQuotaCache` says which windows apply.
 */
export function createQuotaWindows(options: QuotaWindowsOptions): QuotaWindows {
  const { store, now, ttlMs, band, cooldowns } = options;
  // Stored records are replaced, never mutated, so each is parsed once per cache.
  const parsed = new WeakMap<object, WindowRecord | null>();

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
    // A refusal of the client program says nothing about the connection.
    if (failure.kind === "client_refused") return;
    // Any other failure ends a probe's `served` verification (P3).
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

  return { observe, observeFailure, get, needsRefresh, recordServed, knownResets };
}
