import { parseAnthropicApiResponse } from "@planfirst/quota-cache";
import type { UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { baseRequestHeaders } from "../request-headers";

/** Anthropic API version header value sent on every Anthropic-protocol request. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Default Anthropic API origin. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * Client headers an Anthropic upstream receives unchanged: `anthropic-beta` and
 * `anthropic-version` are open lists the client owns, and Claude Code's attribution headers.
 */
export const ANTHROPIC_FORWARDED_HEADERS = [
  "anthropic-beta",
  "anthropic-version",
  "x-claude-code-session-id",
  "x-claude-code-agent-id",
  "x-claude-code-parent-agent-id",
] as const;

/** `{base}/v1/messages`, or `{base}/messages` when the base already ends in `/v1`. */
export function anthropicMessagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * A metered Anthropic API key (`x-api-key`): messages at `{baseUrl}/v1/messages`, no usage
 * endpoint, failures left to quota-cache's Anthropic API parser. `prepare` is always synchronous.
 */
export function createAnthropicConnector(spec: ConnectorSpec): UpstreamConnector {
  const key = staticSecret(spec);
  if (key === null) {
    throw new ConnectorError({
      code: "credential_missing",
      message: `connection ${spec.id}: an Anthropic API key needs credential env:NAME`,
      connectionId: spec.id,
    });
  }
  const url = anthropicMessagesUrl(spec.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL);
  return {
    provider: spec.provider,
    protocol: "anthropic",
    prepare(call) {
      const headers = baseRequestHeaders(call, spec.headers, ANTHROPIC_FORWARDED_HEADERS);
      headers["anthropic-version"] ??= ANTHROPIC_VERSION;
      headers["x-api-key"] = key;
      return { url, headers };
    },
    usageRequest: () => null,
    parseUsage: () => [],
    classifyFailure(status, headers, body, observedAtMs) {
      return parseAnthropicApiResponse({ status, headers, body, observedAtMs }).failure ?? null;
    },
    observeHeaders() {
      // A metered key carries no billing evidence beyond its price.
    },
    invalidateCredential() {
      // A static key cannot be renewed: the dispatcher cools the connection as auth_invalid.
    },
    billsAfterWindow: () => true,
  };
}
