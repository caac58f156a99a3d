import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import { isoAfter } from "./normalise";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import { finishSignals, makeFailure, type ResponseInput, toContext } from "./response-input";

const HARD_STOP_402 = new Set([
  "quota_exceeded",
  "additional_spend_limit_reached",
  "billing_not_configured",
]);
/** A lockout this long is a spent window, not a short rate limit. */
const LONG_LOCKOUT_MS = 3_600_000;

/**
 * The IDE headers Copilot inference requires, and its plain-text refusals of them ("bad request:
 * missing Editor-Version header for IDE auth", "bad request: unknown Copilot-Integration-Id").
 */
const IDE_HEADER_REFUSAL =
  /\b(missing|unknown)(?: required)? (editor-version|copilot-integration-id)\b/i;
const IDE_HEADER_NAMES: Readonly<Record<string, string>> = {
  "editor-version": "Editor-Version",
  "copilot-integration-id": "Copilot-Integration-Id",
};

/**
 * A 4xx refusing the connection's IDE headers: `misconfigured`, with a detail built from fixed
 * words (the header's name and whether it was missing or unknown), never from the body itself.
 */
function ideHeaderRefusal(status: number, message: string | undefined): UpstreamFailure | null {
  if (status < 400 || status >= 500 || !message) return null;
  const match = IDE_HEADER_REFUSAL.exec(message);
  if (!match) return null;
  const verb = match[1]!.toLowerCase();
  const header = match[2]!.toLowerCase();
  return makeFailure("misconfigured", {
    code: `${verb}_${header === "editor-version" ? "editor_version" : "integration_id"}`,
    detail: `Copilot refused the request: ${verb} ${IDE_HEADER_NAMES[header]} header`,
  });
}

/**
 * Signals from a GitHub Copilot chat response (quota-signals.md §5). Copilot sends no quota
 * headers; the state lives in error bodies:
 * - 402 `quota_exceeded` → window_exhausted on `premium_interactions` (reset unknown here; the
 *   `copilot_internal/user` poller knows it); `additional_spend_limit_reached`,
 *   `billing_not_configured` and any other 402 → credits_exhausted.
 * - 429 `rate_limited`, `user_global_rate_limited`, `integration_rate_limited`,
 *   `user_model_rate_limited` (scoped to the request's model), `session_quota_exceeded` →
 *   rate_limited, retry at Retry-After (seconds or HTTP-date) or "try again in 58 hours";
 *   `user_weekly_rate_limited`, or any wait over an hour → window_exhausted until then.
 * - 401/403 → auth_invalid; 503 → overloaded.
 * - A 4xx refusing the IDE headers (quota-signals.md §15: "bad request: missing Editor-Version
 *   header for IDE auth", "unknown Copilot-Integration-Id", a plain-text body) → misconfigured:
 *   the connection's headers are wrong, not the client's request.
 * - `quota_exceeded` is also overage evidence `off`: the plan stopped instead of billing.
 */
export function parseCopilotResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const { code, type, message } = readErrorBody(context.body);
  const errorCode = code ?? type;
  const status = context.status;
  let failure: UpstreamFailure | undefined;
  const refusal = ideHeaderRefusal(status, message);
  if (refusal) {
    failure = refusal;
  } else if (errorCode === "quota_exceeded") {
    failure = makeFailure("window_exhausted", {
      windowId: "premium_interactions",
      code: errorCode,
    });
  } else if (status === 402 || (errorCode !== undefined && HARD_STOP_402.has(errorCode))) {
    failure = makeFailure("credits_exhausted", { code: errorCode });
  } else if (status === 401 || status === 403) {
    failure = makeFailure("auth_invalid", { code: errorCode });
  } else if (status === 503) {
    failure = makeFailure("overloaded", { code: errorCode, model: context.model });
  } else if (status === 429) {
    const retryAt = context.retryAt ?? isoAfter(context.nowMs, parseProseRetryHint(message));
    const waitMs = retryAt === null ? 0 : Date.parse(retryAt) - context.nowMs;
    const model = errorCode === "user_model_rate_limited" ? context.model : undefined;
    if (errorCode === "user_weekly_rate_limited" || waitMs > LONG_LOCKOUT_MS) {
      failure = makeFailure("window_exhausted", {
        retryAt,
        resetAt: retryAt,
        windowId: errorCode === "user_weekly_rate_limited" ? "weekly" : undefined,
        model,
        code: errorCode,
      });
    } else {
      failure = makeFailure("rate_limited", { retryAt, model, code: errorCode });
    }
  }
  const signals = finishSignals(context, [], failure);
  // "You have no quota": the premium allowance ran out and nothing was billed (a hard stop,
  // quota-signals.md §14).
  if (errorCode === "quota_exceeded") {
    signals.evidence = {
      evidence: "off",
      observedAt: context.observedAt,
      source: "copilot-quota-exceeded",
      detail: "402 quota_exceeded",
    };
  }
  return signals;
}
