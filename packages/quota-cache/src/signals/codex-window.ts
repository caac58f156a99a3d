import type { QuotaWindow } from "../quota-state";
import { makeWindow } from "./normalise";

/** Window id from the window length: 300 min → `5h`, 10080 → `7d`, else `${m}m` (pitfall 7). */
function codexWindowId(minutes: number | null, slot: string): string {
  if (minutes === null || minutes <= 0) return slot;
  if (minutes === 300) return "5h";
  if (minutes === 10_080) return "7d";
  return `${minutes}m`;
}

/** One Codex window reading, from headers, the `codex.rate_limits` event or `/wham/usage`. */
export interface CodexWindowReading {
  slot: string;
  usedPercent: number | null;
  minutes: number | null;
  resetMs: number | null;
  /** Extra limit id (`codex_bengalfox`); undefined for the main `codex` limit. */
  limitId?: string | undefined;
  /** Model the extra limit applies to (its `limit_name`), lower-cased. */
  model?: string | undefined;
  /** The provider says this window refuses requests (`limit_reached` on its binding window). */
  limitReached?: boolean;
  source: string;
  observedAt: string;
}

/**
 * True when a reading is the "all-zero" placeholder Codex sends for a window that does not
 * exist: used 0, no length, no reset (pitfall 6).
 */
export function isAbsentCodexWindow(reading: CodexWindowReading): boolean {
  return (
    (reading.usedPercent === null || reading.usedPercent === 0) &&
    (reading.minutes === null || reading.minutes <= 0) &&
    reading.resetMs === null
  );
}

/** Normalised window for a Codex reading; extra limits get a `:<limitId>` suffix and model scope. */
export function codexWindow(reading: CodexWindowReading): QuotaWindow {
  const used = reading.usedPercent;
  const base = codexWindowId(reading.minutes, reading.slot);
  return makeWindow({
    windowId: reading.limitId ? `${base}:${reading.limitId}` : base,
    scope: reading.limitId ? { model: reading.model ?? reading.limitId } : undefined,
    remainingPercent: used === null ? null : 100 - used,
    resetAtMs: reading.resetMs,
    windowSeconds: reading.minutes !== null && reading.minutes > 0 ? reading.minutes * 60 : null,
    rejected: reading.limitReached === true,
    rawUsedPercent: used,
    source: reading.source,
    observedAt: reading.observedAt,
  });
}
