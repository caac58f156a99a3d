import type { QuotaWindow, QuotaWindowScope } from "../quota-state";

/** Latest instant a JavaScript `Date` can hold, in epoch milliseconds. */
const MAX_DATE_MS = 8.64e15;

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads `value[key]` when `value` is a plain object. */
export function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

/** Non-empty trimmed string, else undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A finite number from a number or a plain decimal string (`"12.5"`, `"-1"`); hex, exponent,
 * empty and non-numeric strings give null.
 */
export function finiteNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const parsed = Number(trimmed);
  return Number.isFinite(parsed) ? parsed : null;
}

/** Rounds away float noise (`100 * (1 - 0.42)` is 58.00000000000001) at 1e-6 percent. */
function roundPercent(value: number): number {
  const rounded = Math.round(value * 1e6) / 1e6;
  return Number.isFinite(rounded) ? rounded : value;
}

/** Clamps a percent into 0..100 (float noise rounded away); non-finite gives null. */
function clampPercent(value: number | null | undefined): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return roundPercent(Math.min(100, Math.max(0, value)));
}

/** `100 * remaining / limit`, clamped; null when either count is unusable or the limit is ≤ 0. */
export function percentFromCounts(remaining: number | null, limit: number | null): number | null {
  if (remaining === null || limit === null || limit <= 0) return null;
  return clampPercent((100 * remaining) / limit);
}

/** ISO-8601 of an epoch-ms instant; null when it is not finite or outside the `Date` range. */
export function isoFromMs(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) {
    return null;
  }
  return new Date(ms).toISOString();
}

/** The observation instant as a usable epoch-ms value: non-finite → 0, clamped to the `Date` range. */
export function safeNowMs(observedAtMs: number): number {
  if (typeof observedAtMs !== "number" || !Number.isFinite(observedAtMs)) return 0;
  return Math.min(MAX_DATE_MS, Math.max(-MAX_DATE_MS, observedAtMs));
}

/** ISO instant `delayMs` after `nowMs`; negative delays clamp to now. */
export function isoAfter(nowMs: number, delayMs: number | null): string | null {
  if (delayMs === null || !Number.isFinite(delayMs)) return null;
  return isoFromMs(nowMs + Math.max(0, delayMs));
}

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Strict RFC 3339 / ISO-8601 instant → epoch ms. Accepts any number of fractional digits
 * (Claude sends microseconds), `Z` or `±hh:mm` offsets, and a bare `YYYY-MM-DD` as UTC midnight
 * (Copilot, pitfall 15). A date-time without an offset is read as UTC. Impossible dates → null.
 */
export function parseIsoInstant(value: unknown): number | null {
  const raw = text(value);
  if (raw === undefined) return null;
  const match = ISO_INSTANT.exec(raw);
  if (!match) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return null;
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59));
  const check = new Date(base);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  const fractionMs = frac === "" ? 0 : Number(`0.${frac}`) * 1000;
  let offsetMs = 0;
  if (zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = Number(digits.slice(2, 4));
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    offsetMs = sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  const ms = base + Math.floor(fractionMs) - offsetMs;
  return isoFromMs(ms) === null ? null : ms;
}

/** Fields of a window before it is normalised by {@link makeWindow}. */
interface WindowDraft {
  windowId: string;
  scope?: QuotaWindowScope | undefined;
  remainingPercent: number | null;
  resetAtMs?: number | null;
  windowSeconds?: number | null | undefined;
  /** The provider said this window refuses requests. */
  rejected?: boolean;
  /** The provider warned about this window. */
  warning?: boolean;
  /** Provider says requests are still allowed: remaining 0 then reads as a warning, not exhaustion. */
  allowed?: boolean;
  rawUsedPercent?: number | null;
  source: string;
  observedAt: string;
}

/**
 * Builds a {@link QuotaWindow} that honours every invariant: percent clamped into 0..100 or null,
 * reset a valid ISO instant or null, `windowSeconds` only when a positive finite number. Status:
 * `exhausted` when the provider rejected or nothing remains (unless the provider explicitly
 * allows), `warning` when the provider warns, else `ok`.
 */
export function makeWindow(draft: WindowDraft): QuotaWindow {
  const remainingPercent = clampPercent(draft.remainingPercent);
  let status: QuotaWindow["status"] = "ok";
  if (draft.rejected) status = "exhausted";
  else if (remainingPercent === 0) status = draft.allowed ? "warning" : "exhausted";
  else if (draft.warning) status = "warning";
  const window: QuotaWindow = {
    windowId: draft.windowId,
    remainingPercent,
    resetAt: isoFromMs(draft.resetAtMs ?? null),
    status,
    source: draft.source,
    observedAt: draft.observedAt,
  };
  if (draft.scope?.model) window.scope = { model: draft.scope.model };
  const seconds = draft.windowSeconds;
  if (typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0) {
    window.windowSeconds = seconds;
  }
  const raw = draft.rawUsedPercent;
  if (typeof raw === "number" && Number.isFinite(raw)) window.rawUsedPercent = roundPercent(raw);
  return window;
}

/** `base:model` for a model-scoped window, `base` otherwise. */
export function scopedWindowId(base: string, model: string | undefined): string {
  return model ? `${base}:${model}` : base;
}
