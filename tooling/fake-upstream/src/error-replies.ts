import { anthropicRequestId } from "./ids";
import {
  type ClaudeWindow,
  claudeUnifiedHeaders,
  codexHeaders,
  openAiRateLimitHeaders,
} from "./quota-headers";
import type { Reply, WireProtocol } from "./types";

function anthropicError(type: string, message: string): Record<string, unknown> {
  return { type: "error", error: { type, message }, request_id: anthropicRequestId() };
}

function openAiError(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
) {
  return { error: { message, type, param, code } };
}

/**
 * A Claude plan 429 (quota-signals.md §2a): unified headers with the binding window rejected
 * (utilization 1.0, reset `resetAtSec`), `retry-after`, and a `rate_limit_error` body.
 */
export function claudeRateLimited(options: {
  resetAtSec: number;
  retryAfterSec: number;
  /** Which window ran out; default `five_hour`. */
  window?: "five_hour" | "seven_day";
  /** The other window's state; defaults to 0.59 used, resetting a week after `resetAtSec`. */
  otherWindow?: ClaudeWindow;
  overageStatus?: "allowed" | "allowed_warning" | "rejected" | null;
  overageDisabledReason?: string | null;
}): Reply {
  const exhausted: ClaudeWindow = {
    utilization: 1.0,
    resetAtSec: options.resetAtSec,
    status: "rejected",
  };
  const other: ClaudeWindow = options.otherWindow ?? {
    utilization: 0.59,
    resetAtSec: options.resetAtSec + 108_000,
    status: "allowed",
  };
  const sevenDayBinding = options.window === "seven_day";
  const headers = claudeUnifiedHeaders({
    fiveHour: sevenDayBinding ? other : exhausted,
    sevenDay: sevenDayBinding ? exhausted : other,
    status: "rejected",
    representativeClaim: options.window ?? "five_hour",
    overageStatus: options.overageStatus === undefined ? "rejected" : options.overageStatus,
    overageDisabledReason:
      options.overageDisabledReason === undefined
        ? "out_of_credits"
        : options.overageDisabledReason,
  });
  headers["retry-after"] = String(options.retryAfterSec);
  return {
    status: 429,
    headers,
    body: anthropicError(
      "rate_limit_error",
      "This request would exceed your account's rate limit. Please try again later.",
    ),
  };
}

/** Anthropic capacity trouble: HTTP 529 `overloaded_error` (not a quota signal). */
export function anthropicOverloaded(): Reply {
  return { status: 529, body: anthropicError("overloaded_error", "Overloaded") };
}

/**
 * An OpenAI transient 429 `rate_limit_exceeded` ("Please try again in 1.146s") with `retry-after`
 * and the rate-limit headers at zero remaining.
 */
export function openAiRateLimited(
  options: {
    retryAfterSec?: number;
    tryAgainInSec?: number;
    model?: string;
    dimension?: "tokens" | "requests";
  } = {},
): Reply {
  const tryAgainInSec = options.tryAgainInSec ?? 1.146;
  const dimension = options.dimension ?? "tokens";
  const unit = dimension === "tokens" ? "tokens per min (TPM)" : "requests per min (RPM)";
  const headers = openAiRateLimitHeaders({
    requests: {
      limit: 5000,
      remaining: dimension === "requests" ? 0 : 4999,
      resetMs: tryAgainInSec * 1000,
    },
    tokens: {
      limit: 160000,
      remaining: dimension === "tokens" ? 0 : 159000,
      resetMs: tryAgainInSec * 1000,
    },
    retryAfterSec: options.retryAfterSec ?? Math.ceil(tryAgainInSec),
  });
  return {
    status: 429,
    headers,
    body: openAiError(
      `Rate limit reached for ${options.model ?? "gpt-4o-mini"} in organization org-planfirst on ${unit}: Limit 160000, Used 159000, Requested 3006. Please try again in ${tryAgainInSec}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      dimension,
      "rate_limit_exceeded",
    ),
  };
}

/** An OpenAI hard stop: 429 `insufficient_quota` (credits gone; retrying cannot help). */
export function openAiInsufficientQuota(): Reply {
  return {
    status: 429,
    body: openAiError(
      "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      "insufficient_quota",
      "insufficient_quota",
    ),
  };
}

/** A Copilot seat out of premium requests: HTTP 402 `quota_exceeded`. */
export function copilotQuotaExceeded(): Reply {
  return { status: 402, body: { error: { message: "You have no quota", code: "quota_exceeded" } } };
}

/**
 * A ChatGPT-plan (Codex) 429 `usage_limit_reached` with `resets_at` (epoch seconds) and the
 * `x-codex-*` headers at 100 % of the primary window.
 */
export function codexUsageLimitReached(options: {
  resetsAtSec: number;
  planType?: string;
  windowMinutes?: number;
  nowSec?: number;
}): Reply {
  const nowSec = options.nowSec ?? Math.floor(Date.now() / 1000);
  const planType = options.planType ?? "plus";
  return {
    status: 429,
    headers: codexHeaders({
      primary: {
        usedPercent: 100,
        windowMinutes: options.windowMinutes ?? 300,
        resetAtSec: options.resetsAtSec,
      },
      planType,
      nowSec,
    }),
    body: {
      error: {
        type: "usage_limit_reached",
        message: "You have hit your ChatGPT usage limit. Try again later.",
        plan_type: planType,
        resets_at: options.resetsAtSec,
        resets_in_seconds: Math.max(0, options.resetsAtSec - nowSec),
      },
    },
  };
}

/** A 400 in the protocol's error shape (`invalid_request_error`; the Responses API's is OpenAI's). */
export function badRequest(
  protocol: WireProtocol,
  message = "Invalid request: messages: field required",
): Reply {
  return {
    status: 400,
    body:
      protocol === "anthropic"
        ? anthropicError("invalid_request_error", message)
        : openAiError(message, "invalid_request_error", null, "messages"),
  };
}

/** A 401 in the protocol's error shape (a revoked or wrong credential). */
export function unauthorized(protocol: WireProtocol): Reply {
  return {
    status: 401,
    body:
      protocol === "anthropic"
        ? anthropicError("authentication_error", "invalid x-api-key")
        : openAiError("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
  };
}

/** A 500 in the protocol's error shape. */
export function serverError(protocol: WireProtocol): Reply {
  return {
    status: 500,
    body:
      protocol === "anthropic"
        ? anthropicError("api_error", "Internal server error")
        : openAiError(
            "The server had an error while processing your request.",
            "server_error",
            null,
          ),
  };
}
