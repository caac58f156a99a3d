import {
  claudeUsageEvidence,
  parseClaudeOauthUsage,
  parseClaudeSubscriptionResponse,
} from "@planfirst/quota-cache";
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_FORWARDED_HEADERS,
  anthropicMessagesUrl,
  anthropicRequestHeaders,
} from "../anthropic/anthropic-connector";
import type { UpstreamConnector } from "../connector";
import {
  bearerUsageRequest,
  connectionCredential,
  refreshableSpec,
  withToken,
} from "../connector-credential";
import type { ConnectorDeps, ConnectorSpec } from "../connector-spec";
import { jwtExpiryMs, refreshTokenRefresher } from "../oauth-refresh";
import { answerReader, usageReading } from "../read-signals";
import { mergeBetas } from "../request-headers";

/** Beta flag Anthropic requires on Claude plan OAuth bearer tokens. */
const ANTHROPIC_OAUTH_BETA = "oauth-2025-04-20";

/** Token endpoint of Claude plan logins (refresh_token grant, JSON body); override with `tokenUrl`. */
const CLAUDE_DEFAULT_TOKEN_URL = "https://console.anthropic.com/v1/oauth/token";

/**
 * The public OAuth client Claude Code's logins are issued to; a refresh must name the client the
 * refresh token belongs to. Override with `clientId`.
 */
const CLAUDE_CODE_CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";

/**
 * A Claude Pro/Max login (`Authorization: Bearer` plus `anthropic-beta: oauth-2025-04-20` merged
 * into the client's betas). A static `env:` token is used as is; a login (`planfirst login import
 * claude`) or a refresh token is refreshed before expiry. Usage at `{origin}/api/oauth/usage`.
 * Every answer is read as a Claude login's, whatever the provider id (`claude` or `anthropic`):
 * the unified rate-limit headers, the overage ("extra usage") status and the money refusals
 * (quota-signals.md §2a, §14) through quota-cache's Claude subscription parser; the usage
 * payload's windows and `extra_usage.is_enabled` likewise (quota-signals.md §2b).
 */
export function createClaudeOauthConnector(
  spec: ConnectorSpec,
  deps: ConnectorDeps,
): UpstreamConnector {
  const refreshable = refreshableSpec(spec);
  const tokenUrl = refreshable?.tokenUrl ?? CLAUDE_DEFAULT_TOKEN_URL;
  const clientId = refreshable?.clientId ?? CLAUDE_CODE_CLIENT_ID;
  const credential = connectionCredential(spec, deps, {
    seedExpiresAtMs: refreshable?.accessToken ? jwtExpiryMs(refreshable.accessToken) : null,
    refresher: refreshTokenRefresher({
      connectionId: spec.id,
      tokenUrl,
      clientId,
      encoding: "json",
      now: deps.now,
      missingRefreshToken:
        "the Claude login has no refresh token; run planfirst login import claude",
    }),
  });
  const baseUrl = spec.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const url = anthropicMessagesUrl(baseUrl);
  const usageUrl = spec.usageUrl ?? `${new URL(baseUrl).origin}/api/oauth/usage`;
  return {
    provider: "claude",
    protocol: "anthropic-messages",
    forwardedClientHeaders: ANTHROPIC_FORWARDED_HEADERS,
    prepare(call) {
      return withToken(credential, (token) => {
        const headers = anthropicRequestHeaders(call, spec.headers);
        headers["anthropic-beta"] = mergeBetas(headers["anthropic-beta"], ANTHROPIC_OAUTH_BETA);
        headers.authorization = `Bearer ${token}`;
        return { url, headers };
      });
    },
    usageRequest: () =>
      bearerUsageRequest(credential, usageUrl, () => ({ "anthropic-beta": ANTHROPIC_OAUTH_BETA })),
    readUsage: (payload, observedAtMs) =>
      usageReading(
        parseClaudeOauthUsage(payload, observedAtMs),
        claudeUsageEvidence(payload, observedAtMs),
      ),
    readResponse: answerReader(parseClaudeSubscriptionResponse),
    invalidateCredential: (token) => credential.invalidate(token),
  };
}
