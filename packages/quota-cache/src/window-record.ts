import { normaliseScopeModel } from "./model-scope";
import type { QuotaWindow } from "./quota-state";

/**
 * How a stored window came to be: a reading from a response or usage endpoint, or a mark written
 * by a quota failure. A `named` mark carries the window id the failure named and is replaced by
 * the next reading of that window; an `unnamed` mark (a 429 that named no window) is replaced by
 * any newer reading in its scope.
 */
type WindowOrigin = "reading" | "named-mark" | "unnamed-mark";

/** What the cache stores per (connection, window, scope). */
export interface WindowRecord {
  window: QuotaWindow;
  /** Hysteresis latch of this window (H1–H2). */
  latched: boolean;
  origin: WindowOrigin;
}

const KEY_SEPARATOR = "\u001f";

/** Store key of a window: its id plus its scope model, lower-cased. */
export function windowRecordKey(windowId: string, scopeModel: string | undefined): string {
  const model = normaliseScopeModel(scopeModel);
  return model ? `${windowId}${KEY_SEPARATOR}${model}` : windowId;
}

function isIsoInstant(value: unknown): value is string {
  return typeof value === "string" && !Number.isNaN(Date.parse(value));
}

/**
 * Normalises a window handed to `observe` or read back from a store. Returns undefined when it
 * cannot be used (no id, unparseable `observedAt`); clamps `remainingPercent` into 0..100 and
 * turns NaN into null; drops an unparseable `resetAt`; keeps the unclamped `rawUsedPercent`.
 */
export function normaliseWindow(input: unknown): QuotaWindow | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const raw = input as Record<string, unknown>;
  if (typeof raw.windowId !== "string" || raw.windowId === "") return undefined;
  if (!isIsoInstant(raw.observedAt)) return undefined;
  const remaining =
    typeof raw.remainingPercent === "number" && Number.isFinite(raw.remainingPercent)
      ? Math.min(100, Math.max(0, raw.remainingPercent))
      : null;
  const status =
    raw.status === "exhausted" || raw.status === "warning" || raw.status === "ok"
      ? raw.status
      : "ok";
  const scopeRaw = raw.scope as Record<string, unknown> | undefined;
  const scopeModel =
    scopeRaw && typeof scopeRaw === "object" && typeof scopeRaw.model === "string"
      ? scopeRaw.model.trim()
      : "";
  const window: QuotaWindow = {
    windowId: raw.windowId,
    remainingPercent: remaining,
    resetAt: isIsoInstant(raw.resetAt) ? raw.resetAt : null,
    status,
    source: typeof raw.source === "string" ? raw.source : "unknown",
    observedAt: raw.observedAt,
  };
  if (scopeModel) window.scope = { model: scopeModel };
  if (
    typeof raw.windowSeconds === "number" &&
    Number.isFinite(raw.windowSeconds) &&
    raw.windowSeconds > 0
  ) {
    window.windowSeconds = raw.windowSeconds;
  }
  if (typeof raw.rawUsedPercent === "number" && Number.isFinite(raw.rawUsedPercent)) {
    window.rawUsedPercent = raw.rawUsedPercent;
  }
  if (raw.served === true) window.served = true;
  return window;
}

/** Parses a stored record value; undefined when malformed (skipped, never thrown). */
export function parseWindowRecord(value: unknown): WindowRecord | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const raw = value as Record<string, unknown>;
  const window = normaliseWindow(raw.window);
  if (!window) return undefined;
  const origin =
    raw.origin === "named-mark" || raw.origin === "unnamed-mark" ? raw.origin : "reading";
  return { window, latched: raw.latched === true, origin };
}
