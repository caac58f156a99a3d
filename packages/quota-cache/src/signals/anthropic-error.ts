import type { UpstreamFailure } from "../upstream-failure";
import { readErrorBody } from "./error-body";
import { makeFailure, type ResponseContext } from "./response-input";

/**
 * Claude plan logins answering third-party traffic as paid "extra usage" (quota-signals.md §14):
 * "Third-party apps now draw from your extra usage…", "You're out of extra usage…", "Extra usage
 * is required for long context requests". Any refusal naming extra usage is about money.
 */
const MONEY_REFUSAL_MESSAGE = /\bextra usage\b/i;

/**
 * A Claude plan login refusing a client that is not Claude Code (quota-signals.md §15): "This
 * credential is only authorized for use with Claude Code and cannot be used for other API
 * requests." The login is fine for Claude Code; the client program is what was refused.
 */
const CLAUDE_CODE_ONLY_MESSAGE = /only authorized for use with Claude Code/i;

const CREDIT_MESSAGE =
  /credit balance is too low|spend(?:ing)? limit|billing|insufficient.{0,20}credit/i;

/**
 * Classifies an Anthropic error response (shared by API keys and Claude subscriptions):
 * 529 / `overloaded_error` → overloaded (capacity, not quota); 401/403 → auth_invalid;
 * 402 `billing_error` or a "credit balance is too low" / "spend limit" message → credits_exhausted;
 * 429 / `rate_limit_error` → rate_limited, refined by the caller; a 400/402/429 whose message
 * names "extra usage" → money_refusal (code `extra_usage`); a 400 saying the credential "is only
 * authorized for use with Claude Code" → client_refused. Other statuses → undefined.
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
  if (status === 400 && message !== undefined && CLAUDE_CODE_ONLY_MESSAGE.test(message)) {
    return makeFailure("client_refused", {
      code: code ?? "invalid_request_error",
      detail: "the Claude login serves Claude Code only",
    });
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
