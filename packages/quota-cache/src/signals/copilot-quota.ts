import type { QuotaWindow } from "../quota-state";
import {
  field,
  finiteNumber,
  isoFromMs,
  isRecord,
  makeWindow,
  parseIsoInstant,
  safeNowMs,
} from "./normalise";

/** Snapshots that gate chat traffic; `completions` covers editor inline completions only. */
const CHAT_SNAPSHOTS = ["premium_interactions", "chat"];

/**
 * Windows from GitHub Copilot `GET api.github.com/copilot_internal/user` (quota-signals.md §5).
 *
 * Paid plans: `quota_snapshots.premium_interactions` and `.chat` → windows of the same id;
 * `percent_remaining` (0..100, can be negative) is clamped, with the raw used share kept in
 * `rawUsedPercent`; without it, 100·remaining/entitlement. `unlimited` snapshots give no window.
 * Free plans: `limited_user_quotas.chat` remaining over `monthly_quotas.chat`. Reset from
 * `quota_reset_date_utc`, else `quota_reset_date` / `limited_user_reset_date` (a bare date is UTC
 * midnight). The `completions` quota is skipped: it never gates chat requests.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function parseCopilotQuota(payload: unknown, observedAtMs: number): QuotaWindow[] {
  const observedAt = isoFromMs(safeNowMs(observedAtMs))!;
  if (!isRecord(payload)) return [];
  const resetAtMs =
    parseIsoInstant(payload.quota_reset_date_utc) ??
    parseIsoInstant(payload.quota_reset_date) ??
    parseIsoInstant(payload.limited_user_reset_date);
  const windows: QuotaWindow[] = [];
  const snapshots = payload.quota_snapshots;
  for (const id of CHAT_SNAPSHOTS) {
    const snapshot = field(snapshots, id);
    if (!isRecord(snapshot) || snapshot.unlimited === true) continue;
    let remaining = finiteNumber(snapshot.percent_remaining);
    if (remaining === null) {
      const left = finiteNumber(snapshot.quota_remaining) ?? finiteNumber(snapshot.remaining);
      const entitlement = finiteNumber(snapshot.entitlement);
      if (left !== null && entitlement !== null && entitlement > 0) {
        remaining = (100 * left) / entitlement;
      }
    }
    if (remaining === null) continue;
    windows.push(
      makeWindow({
        windowId: id,
        remainingPercent: remaining,
        resetAtMs,
        rawUsedPercent: 100 - remaining,
        source: "endpoint",
        observedAt,
      }),
    );
  }
  const freeLeft = finiteNumber(field(payload.limited_user_quotas, "chat"));
  const freeTotal = finiteNumber(field(payload.monthly_quotas, "chat"));
  if (
    !windows.some((w) => w.windowId === "chat") &&
    freeLeft !== null &&
    freeTotal !== null &&
    freeTotal > 0
  ) {
    const remaining = (100 * freeLeft) / freeTotal;
    windows.push(
      makeWindow({
        windowId: "chat",
        remainingPercent: remaining,
        resetAtMs,
        rawUsedPercent: 100 - remaining,
        source: "endpoint",
        observedAt,
      }),
    );
  }
  return windows;
}
