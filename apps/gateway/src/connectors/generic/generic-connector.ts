import { createAnthropicConnector } from "../anthropic/anthropic-connector";
import type { UpstreamConnector } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { createOpenAiCompatibleConnector } from "../openai-compatible/openai-compatible-connector";

/** Upstream protocols that have a generic connector, in the order messages list them. */
export const GENERIC_PROTOCOLS = ["openai", "anthropic", "openai-responses"] as const;

/** A protocol with a generic connector (`gemini` has none: its plans need a login of their own). */
export type GenericProtocol = (typeof GENERIC_PROTOCOLS)[number];

/** True when `protocol` has a generic connector. */
export function isGenericProtocol(protocol: string | undefined): protocol is GenericProtocol {
  return (GENERIC_PROTOCOLS as readonly (string | undefined)[]).includes(protocol);
}

/**
 * The generic connector of `protocol` in words, with how it authenticates and which standard
 * signals it reads: `generic openai connector (Bearer key, OpenAI errors and x-ratelimit
 * headers)`. `keyless` for `authType: none`.
 */
export function describeGenericConnector(protocol: GenericProtocol, keyless: boolean): string {
  const auth = keyless ? "no key" : protocol === "anthropic" ? "x-api-key" : "Bearer key";
  const signals =
    protocol === "anthropic"
      ? "Anthropic errors and anthropic-ratelimit headers"
      : "OpenAI errors and x-ratelimit headers";
  return `generic ${protocol} connector (${auth}, ${signals})`;
}

/**
 * The connector of a provider id planfirst has no folder for, by the wire it speaks: `openai`
 * (`{baseUrl}/chat/completions`, Bearer), `openai-responses` (`{baseUrl}/responses`, Bearer) or
 * `anthropic` (`{baseUrl}/v1/messages`, `x-api-key`, `anthropic-version` and the client's
 * Anthropic headers). These are the OpenAI-compatible and Anthropic connectors under the
 * connection's own provider id, reading that protocol's standard headers and error bodies. A
 * static key (`env:NAME`) or none (`authType: none`); no usage endpoint unless `usageUrl` is set
 * (so a plan is verified by probes, ladder.md §15). The connector claims nothing about billing:
 * that is the operator's catalog entry for the provider, else `unknown`, which routes as
 * metered. Throws ConnectorError `invalid_connector_config` naming the connection when `baseUrl`
 * is missing: there is no default host to guess.
 */
export function createGenericConnector(
  spec: ConnectorSpec,
  protocol: GenericProtocol,
): UpstreamConnector {
  if (!spec.baseUrl) {
    throw new ConnectorError({
      code: "invalid_connector_config",
      message: `connection ${spec.id}: provider "${spec.provider}" has no connector of its own, so the generic ${protocol} connector serves it, and that needs baseUrl (there is no default host)`,
      connectionId: spec.id,
    });
  }
  if (protocol === "anthropic") return createAnthropicConnector(spec, { generic: true });
  return createOpenAiCompatibleConnector(spec, {
    api: protocol === "openai-responses" ? "responses" : "chat",
  });
}
