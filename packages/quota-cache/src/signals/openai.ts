import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import { isoAfter, makeWindow } from "./normalise";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import { type RequestsPeriod, rateLimitHeaderWindows } from "./ratelimit-headers";
import {
  finishSignals,
  makeFailure,
  type ResponseContext,
  type ResponseInput,
  toContext,
} from "./response-input";

const INSUFFICIENT_QUOTA = /^insufficient_quota(?:_org|_project|_user)?$/;

/**
 * Classifies an OpenAI-style error (OpenAI, Groq, Azure and compatible servers):
 * `insufficient_quota` (also `_org`/`_project`/`_user`) → credits_exhausted with a `credits`
 * window exhausted and no reset; `rate_limit_exceeded` → rate_limited, retry at Retry-After or the
 * "try again in 1.146s" hint; "Request too large" → rate_limited with code `request_too_large`
 * (it cannot succeed on this key); 402 → credits_exhausted; 401/403 → auth_invalid;
 * 503 → overloaded.
 */
function classifyOpenAiStyleError(context: ResponseContext): {
  failure?: UpstreamFailure;
  creditsExhausted: boolean;
} {
  const { type, code, message } = readErrorBody(context.body);
  const status = context.status;
  const errorCode = code ?? type;
  if ((code && INSUFFICIENT_QUOTA.test(code)) || (type && INSUFFICIENT_QUOTA.test(type))) {
    return {
      failure: makeFailure("credits_exhausted", { code: "insufficient_quota" }),
      creditsExhausted: true,
    };
  }
  if (status === 402) {
    return {
      failure: makeFailure("credits_exhausted", { code: errorCode }),
      creditsExhausted: true,
    };
  }
  if (status === 401 || status === 403) {
    return { failure: makeFailure("auth_invalid", { code: errorCode }), creditsExhausted: false };
  }
  if (status === 503 || status === 529) {
    return {
      failure: makeFailure("overloaded", { code: errorCode, model: context.model }),
      creditsExhausted: false,
    };
  }
  if (status === 429 || code === "rate_limit_exceeded") {
    const tooLarge = message !== undefined && /request too large/i.test(message);
    const hintMs = parseProseRetryHint(message);
    const dimension =
      type === "tokens" || /tokens per/i.test(message ?? "")
        ? "tpm"
        : type === "requests" || /requests per/i.test(message ?? "")
          ? "rpm"
          : undefined;
    return {
      failure: makeFailure("rate_limited", {
        retryAt: context.retryAt ?? isoAfter(context.nowMs, hintMs),
        windowId: dimension,
        code: tooLarge ? "request_too_large" : errorCode,
      }),
      creditsExhausted: false,
    };
  }
  return { creditsExhausted: false };
}

/** Shared body of the OpenAI and generic parsers. */
export function openAiStyleSignals(
  context: ResponseContext,
  requestsPeriod: RequestsPeriod,
): ResponseSignals {
  const windows = rateLimitHeaderWindows(
    context.headers,
    context.nowMs,
    context.observedAt,
    requestsPeriod,
  );
  const { failure, creditsExhausted } = classifyOpenAiStyleError(context);
  if (creditsExhausted) {
    windows.push(
      makeWindow({
        windowId: "credits",
        remainingPercent: 0,
        resetAtMs: null,
        rejected: true,
        source: "body",
        observedAt: context.observedAt,
      }),
    );
  }
  return finishSignals(context, windows, failure);
}

/**
 * Signals from an OpenAI API response (quota-signals.md §3). Windows from
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (`rpm`, `tpm`, 60 s; extra dimensions
 * such as `tokens_usage_based` keep their name); resets are Go durations counted from
 * `observedAtMs` and mean "fully replenished". Azure `-1`/`0` placeholders are absent. Errors as
 * in {@link classifyOpenAiStyleError}.
 */
export function parseOpenAiResponse(input: ResponseInput): ResponseSignals {
  return openAiStyleSignals(toContext(input), "minute");
}
