import type { QuotaWindow } from "../quota-state";
import {
  field,
  finiteNumber,
  isoFromMs,
  isRecord,
  makeWindow,
  parseIsoInstant,
  safeNowMs,
  text,
} from "./normalise";

/** Weekly buckets that are not a model: usage by OAuth apps and the overage-included total. */
const ACCOUNT_WIDE_WEEKLY = new Set(["oauth_apps", "oi", "overage_included"]);

interface WindowKey {
  windowId: string;
  windowSeconds: number;
  model?: string;
}

function keyFromField(name: string): WindowKey | undefined {
  if (name === "five_hour") return { windowId: "5h", windowSeconds: 18_000 };
  if (name === "seven_day") return { windowId: "7d", windowSeconds: 604_800 };
  const weekly = /^seven_day_([a-z0-9_]+)$/.exec(name);
  if (!weekly) return undefined;
  const suffix = weekly[1]!;
  if (ACCOUNT_WIDE_WEEKLY.has(suffix)) return { windowId: `7d_${suffix}`, windowSeconds: 604_800 };
  return { windowId: `7d:${suffix}`, windowSeconds: 604_800, model: suffix };
}

function keyFromLimit(entry: Record<string, unknown>): WindowKey | undefined {
  const scope = entry.scope;
  // A surface-scoped limit (e.g. "cowork") never applies to API traffic.
  if (isRecord(scope) && scope.surface !== null && scope.surface !== undefined) return undefined;
  const modelScope = field(scope, "model");
  const model = (
    text(field(modelScope, "display_name")) ?? text(field(modelScope, "id"))
  )?.toLowerCase();
  const kind = text(entry.kind)?.toLowerCase();
  const group = text(entry.group)?.toLowerCase();
  if (model) {
    return group === "session"
      ? { windowId: `5h:${model}`, windowSeconds: 18_000, model }
      : { windowId: `7d:${model}`, windowSeconds: 604_800, model };
  }
  if (isRecord(modelScope)) return undefined;
  if (kind === "session") return { windowId: "5h", windowSeconds: 18_000 };
  if (kind === "weekly_all") return { windowId: "7d", windowSeconds: 604_800 };
  return undefined;
}

function usageWindow(
  key: WindowKey,
  usedPercent: number | null,
  resetsAt: unknown,
  warning: boolean,
  observedAt: string,
): QuotaWindow | undefined {
  const resetAtMs = parseIsoInstant(resetsAt);
  if (usedPercent === null && resetAtMs === null) return undefined;
  return makeWindow({
    windowId: key.windowId,
    scope: key.model ? { model: key.model } : undefined,
    remainingPercent: usedPercent === null ? null : 100 - usedPercent,
    resetAtMs,
    windowSeconds: key.windowSeconds,
    warning,
    rawUsedPercent: usedPercent,
    source: "endpoint",
    observedAt,
  });
}

/**
 * Windows from the Claude OAuth usage endpoint `GET api.anthropic.com/api/oauth/usage`
 * (quota-signals.md §2b). `utilization` / `percent` are percent **used** 0..100 (unlike the
 * headers' fraction); remaining = 100 − used, clamped, raw kept. `resets_at` is ISO-8601 with
 * microseconds, or null. Fields: `five_hour` → `5h`, `seven_day` → `7d`, any `seven_day_<x>` →
 * `7d:<x>` scoped to model `<x>` (`oauth_apps` stays account-wide as `7d_oauth_apps`); null
 * windows and unknown codename keys are skipped. `limits[]`: `session` → `5h`, `weekly_all` →
 * `7d`, `weekly_scoped` → `7d:<display name lower-cased>` scoped to that model, `severity:
 * warning` → warning; surface-scoped entries are ignored. A `limits[]` entry replaces the
 * top-level field of the same window.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseClaudeOauthUsage(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const observedAt = isoFromMs(safeNowMs(observedAtMs))!;
  if (!isRecord(payload)) return [];
  const byId = new Map<string, QuotaWindow>();
  for (const [name, value] of Object.entries(payload)) {
    const key = keyFromField(name);
    if (!key || !isRecord(value)) continue;
    const window = usageWindow(
      key,
      finiteNumber(value.utilization),
      value.resets_at,
      false,
      observedAt,
    );
    if (window) byId.set(window.windowId, window);
  }
  if (Array.isArray(payload.limits)) {
    for (const entry of payload.limits) {
      if (!isRecord(entry)) continue;
      const key = keyFromLimit(entry);
      if (!key) continue;
      const severity = text(entry.severity)?.toLowerCase();
      const window = usageWindow(
        key,
        finiteNumber(entry.percent),
        entry.resets_at,
        severity === "warning" || severity === "critical",
        observedAt,
      );
      if (window) byId.set(window.windowId, window);
    }
  }
  return [...byId.values()];
}
