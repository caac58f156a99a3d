import { parseAnthropicApiResponse } from "@planfirst/quota-cache";
import type { ConnectorCall, UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { meteredEvidence } from "../metered-evidence";
import { answerReader } from "../read-signals";
import { baseRequestHeaders, mergeBetas } from "../request-headers";

/** Anthropic API version header value sent on every Anthropic-protocol request. */
const ANTHROPIC_VERSION = "2023-06-01";

/** Default Anthropic API origin. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * Client headers an Anthropic upstream receives as the client sent them (quota-signals.md §14):
 * `anthropic-beta` and `anthropic-version` are open lists the client owns, then Claude Code's
 * attribution headers and `x-app`.
 */
export const ANTHROPIC_FORWARDED_HEADERS = [
  "anthropic-beta",
  "anthropic-version",
  "x-claude-code-session-id",
  "x-claude-code-agent-id",
  "x-claude-code-parent-agent-id",
  "x-app",
] as const;

/** What the client owns on an Anthropic call: its user agent and the forwarded headers. */
const CLIENT_OWNED: readonly string[] = ["user-agent", ...ANTHROPIC_FORWARDED_HEADERS];

/** `{base}/v1/messages`, or `{base}/messages` when the base already ends in `/v1`. */
export function anthropicMessagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * Headers of an Anthropic-protocol call before auth: `baseRequestHeaders` (JSON, planfirst's own
 * user agent unless the client sent one, the connection's `headers`), then what the client owns
 * over the connection's: its user agent, `anthropic-version` and attribution headers as it sent
 * them, its `anthropic-beta` flags joined after the connection's (each once).
 * `anthropic-version` is {@link ANTHROPIC_VERSION} when neither set one.
 */
export function anthropicRequestHeaders(
  call: ConnectorCall,
  configHeaders: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers = baseRequestHeaders(call, configHeaders);
  const client = call.clientHeaders;
  if (client) {
    for (const name of CLIENT_OWNED) {
      const value = client[name];
      if (!value) continue;
      headers[name] = name === "anthropic-beta" ? mergeBetas(headers[name], value) : value;
    }
  }
  headers["anthropic-version"] ??= ANTHROPIC_VERSION;
  return headers;
}

/** Options of {@link createAnthropicConnector}. */
interface AnthropicConnectorOptions {
  /**
   * True when the connector serves a provider planfirst has no folder for (the generic
   * `anthropic` connector): `authType: none` sends no key, and the connector claims nothing
   * about billing (the operator's catalog entry decides). Default false: Anthropic's own metered
   * API key, which bills for every token.
   */
  generic?: boolean;
}

/**
 * An Anthropic API key (`x-api-key`): messages at `{baseUrl}/v1/messages`, no usage endpoint,
 * answers read with quota-cache's Anthropic API parser (the `anthropic-ratelimit-*` buckets,
 * quota-signals.md §1) whatever the provider id. Anthropic's own key bills every request, so its
 * answers carry overage evidence `on`; a generic connection's carry none. `prepare` is always
 * synchronous.
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
  const read = answerReader(parseAnthropicApiResponse);
  // A generic connection's billing is its catalog entry's word: its answers give no evidence.
  const billed = generic ? null : meteredEvidence(`a ${spec.provider} API key bills every request`);
  return {
    provider: spec.provider,
    protocol: "anthropic-messages",
    forwardedClientHeaders: ANTHROPIC_FORWARDED_HEADERS,
    prepare(call) {
      const headers = anthropicRequestHeaders(call, spec.headers);
      if (key !== null) headers["x-api-key"] = key;
      return { url, headers };
    },
    usageRequest: () => null,
    readUsage: () => ({ windows: [] }),
    readResponse(answer) {
      const signals = read(answer);
      if (billed) signals.evidence = billed(answer.observedAtMs);
      return signals;
    },
    invalidateCredential() {
      // A static key cannot be renewed: the dispatcher cools the connection as auth_invalid.
    },
  };
}
