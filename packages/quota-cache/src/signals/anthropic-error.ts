import type { UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import { makeFailure, type ResponseContext } from "./response-input";

/**
 * Claude plan logins answering third-party traffic as paid "extra usage" (quota-signals.md §14):
 * "Third-party apps now draw from your extra usage…", "You're out of extra usage…", "Extra usage
 * is required for long context requests". Any refusal naming extra usage is about money.
 */
const MONEY_REFUSAL_MESSAGE = /\bextra usage\b/i;

const CREDIT_MESSAGE =
  /credit balance is too low|spend(?:ing)? limit|billing|insufficient.{0,20}credit/i;

/**
 * Classifies an Anthropic error response (shared by API keys and Claude subscriptions):
 * 529 / `overloaded_error` → overloaded (capacity, not quota); 401/403 → auth_invalid;
 * 402 `billing_error` or a "credit balance is too low" / "spend limit" message → credits_exhausted;
 * 429 / `rate_limit_error` → rate_limited, refined by the caller; a 400/402/429 whose message
 * names "extra usage" → money_refusal (code `extra_usage`). Other statuses → undefined.
 */
export function classifyAnthropicError(context: ResponseContext): UpstreamFailure | undefined {
  const { type, message } = readErrorBody(context.body);
  const status = context.status;
  const code = type;
  if (status === 529 || type === "overloaded_error" || status === 503) {
    return makeFailure("overloaded", { code, model: context.model });
  }
  if (
    status === 401 ||
    status === 403 ||
    type === "authentication_error" ||
    type === "permission_error"
  ) {
    return makeFailure("auth_invalid", { code });
  }
  if (
    (status === 400 || status === 402 || status === 429) &&
    message !== undefined &&
    MONEY_REFUSAL_MESSAGE.test(message)
  ) {
    return makeFailure("money_refusal", { code: code ?? "extra_usage" });
  }
  if (
    status === 402 ||
    type === "billing_error" ||
    ((status === 400 || status === 429) && message !== undefined && CREDIT_MESSAGE.test(message))
  ) {
    return makeFailure("credits_exhausted", { code: code ?? "billing_error" });
  }
  if (status === 429 || type === "rate_limit_error") {
    return makeFailure("rate_limited", { code: code ?? "rate_limit_error" });
  }
  return undefined;
}
