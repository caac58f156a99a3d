import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import {
  field,
  finiteNumber,
  isoAfter,
  isoFromMs,
  isRecord,
  makeWindow,
  parseIsoInstant,
  scopedWindowId,
  text,
} from "./normalise";
import { parseGoDuration } from "./parse-go-duration";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import { finishSignals, makeFailure, type ResponseInput, toContext } from "./response-input";
import { nextPacificMidnightMs } from "./utc-boundaries";

/** A retry delay beyond this is a terminal quota, not a short wait (gemini-cli). */
const TERMINAL_DELAY_MS = 300_000;

interface Period {
  daily: boolean;
  perMinute: boolean;
}

function periodOf(quotaId: string): Period {
  return { daily: /PerDay|Daily/i.test(quotaId), perMinute: /PerMinute/i.test(quotaId) };
}

/** `GenerateRequestsPerDay…` → `rpd`, `…InputTokens…PerMinute` → `itpm`, and so on. */
function quotaWindowId(quotaId: string, period: Period): string | undefined {
  if (!period.daily && !period.perMinute) return undefined;
  const kind = /Input/i.test(quotaId)
    ? "itp"
    : /Output/i.test(quotaId)
      ? "otp"
      : /Token/i.test(quotaId)
        ? "tp"
        : "rp";
  return `${kind}${period.daily ? "d" : "m"}`;
}

function detailType(detail: unknown): string {
  return text(field(detail, "@type"))?.split("/").pop() ?? "";
}

/**
 * Signals from a Google response: Gemini API, Gemini Code Assist and Antigravity
 * (quota-signals.md §6). Google sends no quota headers; a 429 `RESOURCE_EXHAUSTED` body decides:
 * - `QuotaFailure` violations: a `quotaId` with `PerDay`/`Daily` → window_exhausted until the next
 *   midnight America/Los_Angeles; `PerMinute` → rate_limited for `RetryInfo.retryDelay` (else
 *   60 s). Each violation gives an exhausted window (`rpd`, `rpm`, `tpm`, `itpm`…) scoped to its
 *   `quotaDimensions.model` (else the request's model), with no remaining percent.
 * - `ErrorInfo.reason`: `QUOTA_EXHAUSTED` → window_exhausted (reset `quotaResetTimeStamp`);
 *   `RATE_LIMIT_EXCEEDED` → rate_limited (retry `quotaResetDelay`); `INSUFFICIENT_G1_CREDITS_BALANCE`
 *   → credits_exhausted; older `quota_limit` metadata is read like a `quotaId`.
 * - A retry delay over 300 s counts as window_exhausted; "Please retry in 24.07s" is the fallback.
 * - A 429 with no details → rate_limited scoped to the request's model, no reset invented.
 * - 503 / `UNAVAILABLE` → overloaded; 401, 403 (`VALIDATION_REQUIRED`, `PERMISSION_DENIED`) →
 *   auth_invalid.
 */
export function parseGeminiResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const { status: rpcStatus, message, error, code } = readErrorBody(context.body);
  const status = context.status || (finiteNumber(code) ?? 0);
  const details = Array.isArray(field(error, "details"))
    ? (field(error, "details") as unknown[])
    : [];
  const windows: QuotaWindow[] = [];

  if (status === 503 || rpcStatus === "UNAVAILABLE") {
    const failure = makeFailure("overloaded", { code: rpcStatus, model: context.model });
    return finishSignals(context, windows, failure);
  }
  const reasons = details
    .filter((d) => detailType(d) === "google.rpc.ErrorInfo")
    .map((d) => ({
      reason: text(field(d, "reason")),
      metadata: isRecord(field(d, "metadata"))
        ? (field(d, "metadata") as Record<string, unknown>)
        : {},
    }));
  if (
    status === 401 ||
    status === 403 ||
    rpcStatus === "UNAUTHENTICATED" ||
    rpcStatus === "PERMISSION_DENIED"
  ) {
    const reason = reasons.find((r) => r.reason)?.reason;
    return finishSignals(
      context,
      windows,
      makeFailure("auth_invalid", { code: reason ?? rpcStatus }),
    );
  }
  if (status !== 429 && status !== 499 && rpcStatus !== "RESOURCE_EXHAUSTED") {
    return finishSignals(context, windows);
  }

  let retryMs: number | null = null;
  for (const detail of details) {
    if (detailType(detail) === "google.rpc.RetryInfo") {
      retryMs = parseGoDuration(text(field(detail, "retryDelay")));
    }
  }
  const info = reasons[0];
  const infoDelay = parseGoDuration(text(info?.metadata.quotaResetDelay));
  retryMs ??= infoDelay ?? parseProseRetryHint(message);
  const infoResetMs = parseIsoInstant(info?.metadata.quotaResetTimeStamp);
  const infoModel = text(info?.metadata.model);

  let daily = false;
  let perMinute = false;
  let failureWindowId: string | undefined;
  let failureModel: string | undefined;
  let failureIsDaily = false;
  const violations = details
    .filter((d) => detailType(d) === "google.rpc.QuotaFailure")
    .flatMap((d) => {
      const list = field(d, "violations");
      return Array.isArray(list) ? list : [];
    });
  const quotaIds: Array<{ quotaId: string; model: string | undefined }> = violations.map((v) => ({
    quotaId: text(field(v, "quotaId")) ?? "",
    model: text(field(field(v, "quotaDimensions"), "model")) ?? infoModel ?? context.model,
  }));
  const legacyLimit = text(info?.metadata.quota_limit);
  if (legacyLimit) quotaIds.push({ quotaId: legacyLimit, model: infoModel ?? context.model });

  const pacificMidnightMs = nextPacificMidnightMs(context.nowMs);
  const minuteResetMs = context.nowMs + (retryMs ?? 60_000);
  const seen = new Set<string>();
  for (const { quotaId, model } of quotaIds) {
    const period = periodOf(quotaId);
    const base = quotaWindowId(quotaId, period);
    if (!base) continue;
    daily ||= period.daily;
    perMinute ||= period.perMinute;
    const windowId = scopedWindowId(base, model?.toLowerCase());
    // The failure names the daily window when there is one, else the first one.
    if (failureWindowId === undefined || (period.daily && !failureIsDaily)) {
      failureWindowId = windowId;
      failureModel = model;
      failureIsDaily = period.daily;
    }
    if (seen.has(windowId)) continue;
    seen.add(windowId);
    windows.push(
      makeWindow({
        windowId,
        scope: model ? { model: model.toLowerCase() } : undefined,
        remainingPercent: null,
        resetAtMs: period.daily ? pacificMidnightMs : minuteResetMs,
        windowSeconds: period.daily ? 86_400 : 60,
        rejected: true,
        source: "body",
        observedAt: context.observedAt,
      }),
    );
  }

  const reason = info?.reason;
  const retryAt = context.retryAt ?? isoAfter(context.nowMs, retryMs);
  const model = failureModel ?? infoModel ?? context.model;
  let failure: UpstreamFailure;
  if (reason === "INSUFFICIENT_G1_CREDITS_BALANCE") {
    failure = makeFailure("credits_exhausted", { code: reason });
  } else if (daily) {
    failure = makeFailure("window_exhausted", {
      resetAt: isoFromMs(pacificMidnightMs),
      retryAt: retryAt ?? isoFromMs(pacificMidnightMs),
      windowId: failureWindowId,
      model,
      code: reason ?? rpcStatus,
    });
  } else if (reason === "QUOTA_EXHAUSTED" || (retryMs !== null && retryMs > TERMINAL_DELAY_MS)) {
    const resetAt = isoFromMs(infoResetMs) ?? retryAt;
    failure = makeFailure("window_exhausted", {
      resetAt,
      retryAt: retryAt ?? resetAt,
      windowId: failureWindowId,
      model,
      code: reason ?? rpcStatus,
    });
  } else {
    const waitMs = retryMs ?? (perMinute ? 60_000 : null);
    failure = makeFailure("rate_limited", {
      retryAt: context.retryAt ?? isoAfter(context.nowMs, waitMs),
      resetAt: isoFromMs(infoResetMs),
      windowId: failureWindowId,
      model,
      code: reason ?? rpcStatus ?? "RESOURCE_EXHAUSTED",
    });
  }
  return finishSignals(context, windows, failure);
}
