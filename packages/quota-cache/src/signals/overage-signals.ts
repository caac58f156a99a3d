import type { OverageObservation } from "../overage-evidence";
import type { OverageSignal } from "../upstream-failure";
import type { HeaderMap } from "./header-input";
import { field, finiteNumber, isoFromMs, isRecord, safeNowMs, text } from "./normalise";

/** `true`/`false`/`1`/`0`, case-insensitive (Codex sends Python-style `True`); else undefined. */
export function readFlag(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value === 1 ? true : value === 0 ? false : undefined;
  const lower = text(value)?.toLowerCase();
  if (lower === "true" || lower === "1") return true;
  if (lower === "false" || lower === "0") return false;
  return undefined;
}

function observation(
  evidence: OverageObservation["evidence"],
  observedAt: string,
  source: string,
  detail?: string,
): OverageObservation {
  const out: OverageObservation = { evidence, observedAt, source };
  if (detail) out.detail = detail.slice(0, 200);
  return out;
}

/**
 * Claude `anthropic-ratelimit-unified-overage-status` (E1/E2): `allowed` / `allowed_warning` →
 * `on`; `rejected` with an `overage-disabled-reason` → `off`; `rejected` without a reason says
 * nothing about the account setting and gives no evidence.
 */
export function claudeHeaderEvidence(
  overage: OverageSignal | undefined,
  observedAt: string,
): OverageObservation | undefined {
  if (!overage) return undefined;
  if (overage.status === "allowed" || overage.status === "allowed_warning") {
    return observation("on", observedAt, "claude-header", `overage-status=${overage.status}`);
  }
  if (overage.disabledReason) {
    return observation("off", observedAt, "claude-header", overage.disabledReason);
  }
  return undefined;
}

/**
 * Codex credits (E1/E2, quota-signals.md §14): credits are spent automatically after the window,
 * so `has_credits` or `unlimited` true → `on`; both false → `off`; anything else → no evidence.
 */
function codexCreditsEvidence(
  hasCredits: unknown,
  unlimited: unknown,
  observedAt: string,
  source: string,
): OverageObservation | undefined {
  const has = readFlag(hasCredits);
  const unlimitedFlag = readFlag(unlimited);
  if (has === true || unlimitedFlag === true) {
    return observation(
      "on",
      observedAt,
      source,
      has === true ? "has_credits=true" : "unlimited=true",
    );
  }
  if (has === false && unlimitedFlag === false) {
    return observation("off", observedAt, source, "has_credits=false unlimited=false");
  }
  return undefined;
}

/** Codex `x-codex-credits-has-credits` / `x-codex-credits-unlimited` response headers. */
export function codexHeaderEvidence(
  headers: HeaderMap,
  observedAt: string,
): OverageObservation | undefined {
  return codexCreditsEvidence(
    headers.get("x-codex-credits-has-credits"),
    headers.get("x-codex-credits-unlimited"),
    observedAt,
    "codex-header",
  );
}

/**
 * Claude `/api/oauth/usage` (E1/E2): `extra_usage.is_enabled` true → `on`, false → `off`.
 * Pure and total; undefined when the payload says nothing about extra usage.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function claudeUsageEvidence(
  payload: unknown,
  observedAtMs: number,
): OverageObservation | undefined {
  if (!isRecord(payload)) return undefined;
  const enabled = readFlag(field(payload.extra_usage, "is_enabled"));
  if (enabled === undefined) return undefined;
  return observation(
    enabled ? "on" : "off",
    isoFromMs(safeNowMs(observedAtMs))!,
    "claude-usage",
    `extra_usage.is_enabled=${enabled}`,
  );
}

/**
 * Codex `/wham/usage` and the in-band `codex.rate_limits` event (E1/E2, quota-signals.md §14):
 * `credits.has_credits` or `unlimited` true → `on`, both false → `off` (source `codex-event` for
 * the event, `codex-usage` for the endpoint). Pure and total; undefined when it says nothing.
 *
 * @param observedAtMs epoch ms at which the payload was fetched or the event arrived
 */
export function codexUsageEvidence(
  payload: unknown,
  observedAtMs: number,
): OverageObservation | undefined {
  if (!isRecord(payload)) return undefined;
  const credits = payload.credits;
  if (!isRecord(credits)) return undefined;
  const source =
    payload.type === "codex.rate_limits" || isRecord(payload.rate_limits)
      ? "codex-event"
      : "codex-usage";
  return codexCreditsEvidence(
    credits.has_credits,
    credits.unlimited,
    isoFromMs(safeNowMs(observedAtMs))!,
    source,
  );
}

/**
 * Copilot `copilot_internal/user` (E1/E2): `premium_interactions.overage_permitted` true → `on`,
 * false → `off`, with `overage_count` attached (the cache turns a rising count into `on`); a count
 * above 0 with no `overage_permitted` is `on` (premium requests were billed). Pure and total;
 * undefined when the payload says nothing about overage.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function copilotUsageEvidence(
  payload: unknown,
  observedAtMs: number,
): OverageObservation | undefined {
  if (!isRecord(payload)) return undefined;
  const premium = field(payload.quota_snapshots, "premium_interactions");
  if (!isRecord(premium)) return undefined;
  const observedAt = isoFromMs(safeNowMs(observedAtMs))!;
  const permitted = readFlag(premium.overage_permitted);
  const count = finiteNumber(premium.overage_count);
  const countDetail = count !== null && count >= 0 ? ` overage_count=${count}` : "";
  let out: OverageObservation | undefined;
  if (permitted !== undefined) {
    out = observation(
      permitted ? "on" : "off",
      observedAt,
      "copilot-usage",
      `overage_permitted=${permitted}${countDetail}`,
    );
  } else if (count !== null && count > 0) {
    out = observation("on", observedAt, "copilot-usage", countDetail.trim());
  }
  if (out && count !== null && count >= 0) out.overageCount = count;
  return out;
}

/**
 * Overage evidence from a usage-endpoint payload (or the in-band Codex event), by canonical
 * provider id: `claude` ({@link claudeUsageEvidence}), `codex` ({@link codexUsageEvidence}),
 * `github-copilot` ({@link copilotUsageEvidence}); any other id says nothing. Pure and total;
 * undefined when the payload says nothing about overage.
 *
 * @param observedAtMs epoch ms at which the payload was fetched
 */
export function usagePayloadEvidence(
  provider: string,
  payload: unknown,
  observedAtMs: number,
): OverageObservation | undefined {
  const id = typeof provider === "string" ? provider.trim().toLowerCase() : "";
  if (id === "claude") return claudeUsageEvidence(payload, observedAtMs);
  if (id === "codex") return codexUsageEvidence(payload, observedAtMs);
  if (id === "github-copilot") return copilotUsageEvidence(payload, observedAtMs);
  return undefined;
}
