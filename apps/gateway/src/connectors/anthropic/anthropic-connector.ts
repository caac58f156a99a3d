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

/** Options of {@link createAnthropicConnector}. */
export interface AnthropicConnectorOptions {
  /**
   * True when the connector serves a provider planfirst has no folder for (the generic
   * `anthropic` connector): `authType: none` sends no key, answers are read with the Anthropic
   * API parser whatever the provider id, and the connector claims nothing about billing (the
   * operator's catalog entry decides). Default false: Anthropic's own metered API key, which
   * bills for every token.
   */
  generic?: boolean;
}

/**
 * An Anthropic API key (`x-api-key`): messages at `{baseUrl}/v1/messages`, no usage endpoint,
 * failures left to quota-cache's Anthropic API parser. Metered unless `options.generic`.
 * `prepare` is always synchronous.
 */
export function createAnthropicConnector(
  spec: ConnectorSpec,
  options: AnthropicConnectorOptions = {},
): UpstreamConnector {
  const generic = options.generic === true;
  const keyless = generic && spec.authType === "none";
  const key = keyless ? null : staticSecret(spec);
  if (!keyless && key === null) {
    throw new ConnectorError({
      code: "credential_missing",
      message: generic
        ? `connection ${spec.id}: authType ${spec.authType} needs credential env:NAME (use authType none for a keyless server)`
        : `connection ${spec.id}: an Anthropic API key needs credential env:NAME`,
      connectionId: spec.id,
    });
  }
  const url = anthropicMessagesUrl(spec.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL);
  // Anthropic's own key bills for every token. A generic connection's billing is its catalog
  // entry's word, so it gives no evidence either way (null); a keyless server cannot bill.
  let bills: boolean | null = true;
  if (generic) bills = keyless ? false : null;
  return {
    provider: spec.provider,
    protocol: "anthropic",
    // An id quota-cache does not know would otherwise be read as an OpenAI-compatible server.
    ...(generic ? { signalsProvider: "anthropic" } : {}),
    prepare(call) {
      const headers = baseRequestHeaders(call, spec.headers, ANTHROPIC_FORWARDED_HEADERS);
      headers["anthropic-version"] ??= ANTHROPIC_VERSION;
      if (key !== null) headers["x-api-key"] = key;
      return { url, headers };
    },
    usageRequest: () => null,
    parseUsage: () => [],
    classifyFailure(status, headers, body, observedAtMs) {
      return parseAnthropicApiResponse({ status, headers, body, observedAtMs }).failure ?? null;
    },
    observeHeaders() {
      // An API key carries no billing evidence in its headers.
    },
    invalidateCredential() {
      // A static key cannot be renewed: the dispatcher cools the connection as auth_invalid.
    },
    billsAfterWindow: () => bills,
  };
}
