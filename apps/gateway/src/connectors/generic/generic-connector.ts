import {
  parseCodeAssistQuota,
  parseGeminiResponse,
  type ResponseSignalParser,
  type UsagePayloadParser,
} from "@planfirst/quota-cache";
import { configNameOf, type ProtocolName } from "../../protocols";
import { createAnthropicConnector } from "../anthropic/anthropic-connector";
import type { UpstreamConnector } from "../connector";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { createOpenAiCompatibleConnector } from "../openai-compatible/openai-compatible-connector";

/**
 * Providers with no folder of their own whose answers speak a family beyond their protocol's
 * standard signals. Google's Gemini API (quota-signals.md §6a) answers its OpenAI-compatible
 * endpoint's quota errors in Google's own body (`RESOURCE_EXHAUSTED` with `QuotaFailure` and
 * `RetryInfo`), and Antigravity's quota endpoint is Code Assist's (quota-signals.md §6c).
 */
const GENERIC_DIALECTS: Readonly<
  Record<string, { readAnswer?: ResponseSignalParser; readUsage?: UsagePayloadParser }>
> = Object.freeze({
  google: { readAnswer: parseGeminiResponse },
  antigravity: { readAnswer: parseGeminiResponse, readUsage: parseCodeAssistQuota },
});

/** The dialect of a provider id, when it has one (see `GENERIC_DIALECTS`). */
function dialectOf(spec: ConnectorSpec) {
  const id = spec.provider.trim().toLowerCase();
  return Object.hasOwn(GENERIC_DIALECTS, id) ? GENERIC_DIALECTS[id] : undefined;
}

/** One protocol's generic connector: how it authenticates, what it reads, how it is built. */
interface GenericConnector {
  /** How a key travels, in words. */
  readonly keyAuth: string;
  /** The standard signals it reads, in words. */
  readonly signals: string;
  readonly create: (spec: ConnectorSpec) => UpstreamConnector;
}

const GENERIC_CONNECTORS = {
  "openai-chat": {
    keyAuth: "Bearer key",
    signals: "OpenAI errors and x-ratelimit headers",
    create: (spec) => createOpenAiCompatibleConnector(spec, { api: "chat", ...dialectOf(spec) }),
  },
  "anthropic-messages": {
    keyAuth: "x-api-key",
    signals: "Anthropic errors and anthropic-ratelimit headers",
    create: (spec) => createAnthropicConnector(spec, { generic: true }),
  },
  "openai-responses": {
    keyAuth: "Bearer key",
    signals: "OpenAI errors and x-ratelimit headers",
    create: (spec) =>
      createOpenAiCompatibleConnector(spec, { api: "responses", ...dialectOf(spec) }),
  },
} satisfies Partial<Record<ProtocolName, GenericConnector>>;

/** A protocol with a generic connector (`gemini` has none: its plans need a login of their own). */
export type GenericProtocol = keyof typeof GENERIC_CONNECTORS;

/** Upstream protocols that have a generic connector, in the order messages list them. */
export const GENERIC_PROTOCOLS = Object.keys(GENERIC_CONNECTORS) as readonly GenericProtocol[];

/** True when `protocol` has a generic connector. */
export function isGenericProtocol(protocol: string | undefined): protocol is GenericProtocol {
  return protocol !== undefined && Object.hasOwn(GENERIC_CONNECTORS, protocol);
}

/**
 * The generic connector of `protocol` in words, by the protocol's config name, with how it
 * authenticates and which standard signals it reads: `generic openai connector (Bearer key,
 * OpenAI errors and x-ratelimit headers)`. `keyless` for `authType: none`.
 */
export function describeGenericConnector(protocol: GenericProtocol, keyless: boolean): string {
  const generic: GenericConnector = GENERIC_CONNECTORS[protocol];
  const auth = keyless ? "no key" : generic.keyAuth;
  return `generic ${configNameOf(protocol)} connector (${auth}, ${generic.signals})`;
}

/**
 * The connector of a provider id planfirst has no folder for, by the wire it speaks: `openai`
 * (`{baseUrl}/chat/completions`, Bearer), `openai-responses` (`{baseUrl}/responses`, Bearer) or
 * `anthropic` (`{baseUrl}/v1/messages`, `x-api-key`, `anthropic-version` and the client's
 * Anthropic headers). These are the OpenAI-compatible and Anthropic connectors under the
 * connection's own provider id, reading that protocol's standard headers and error bodies
 * (Google's and Antigravity's in their own family, see `GENERIC_DIALECTS`). A static key
 * (`env:NAME`) or none (`authType: none`); no usage endpoint unless `usageUrl` is set (so a plan
 * is verified by probes, ladder.md §15). The connector claims nothing about billing: that is the
 * operator's catalog entry for the provider, else `unknown`, which routes as metered. Throws
 * ConnectorError `invalid_connector_config` naming the connection when `baseUrl` is missing:
 * there is no default host to guess.
 */
export function createGenericConnector(
  spec: ConnectorSpec,
  protocol: GenericProtocol,
): UpstreamConnector {
  if (!spec.baseUrl) {
    throw new ConnectorError({
      code: "invalid_connector_config",
      message: `connection ${spec.id}: provider "${spec.provider}" has no connector of its own, so the generic ${configNameOf(protocol)} connector serves it, and that needs baseUrl (there is no default host)`,
      connectionId: spec.id,
    });
  }
  const generic: GenericConnector = GENERIC_CONNECTORS[protocol];
  return generic.create(spec);
}
