import type { ProtocolName } from "../protocols";
import {
  ANTHROPIC_FORWARDED_HEADERS,
  anthropicMessagesUrl,
  anthropicRequestHeaders,
} from "./anthropic/anthropic-connector";
import type { ConnectorCall, PreparedRequest } from "./connector";
import { joinUrl } from "./connector";
import type { ConnectorSpec } from "./connector-spec";
import { baseRequestHeaders } from "./request-headers";

/** How a plan's secret travels: as `x-api-key`, or as a Bearer token. */
type PlanAuth = "x-api-key" | "bearer";

interface PlanEndpoint {
  /** The client headers the endpoint forwards beyond `user-agent` (`forwardedClientHeaders`). */
  readonly forwardedClientHeaders: readonly string[];
  request(
    spec: ConnectorSpec,
    baseUrl: string,
    call: ConnectorCall,
    secret: string,
    auth: PlanAuth,
  ): PreparedRequest;
}

/** The two endpoints of a plan that offers both wires, by protocol. */
const PLAN_ENDPOINTS = {
  "openai-chat": {
    forwardedClientHeaders: [],
    request(spec, baseUrl, call, secret) {
      const headers = baseRequestHeaders(call, spec.headers);
      headers.authorization = `Bearer ${secret}`;
      return { url: joinUrl(baseUrl, "/chat/completions"), headers };
    },
  },
  "anthropic-messages": {
    forwardedClientHeaders: ANTHROPIC_FORWARDED_HEADERS,
    request(spec, baseUrl, call, secret, auth) {
      const headers = anthropicRequestHeaders(call, spec.headers);
      if (auth === "x-api-key") headers["x-api-key"] = secret;
      else headers.authorization = `Bearer ${secret}`;
      return { url: anthropicMessagesUrl(baseUrl), headers };
    },
  },
} satisfies Partial<Record<ProtocolName, PlanEndpoint>>;

/** A wire a dual-endpoint plan (z.ai, Kimi) speaks. */
type PlanProtocol = keyof typeof PLAN_ENDPOINTS;

/**
 * The wire a dual-endpoint plan connection speaks: the configured one when the plan has that
 * endpoint, else chat completions (a connection configured for a wire the plan lacks is then
 * disabled for the mismatch, see `wireConnectors`).
 */
export function planProtocol(spec: ConnectorSpec): PlanProtocol {
  const configured = spec.protocol;
  return configured !== undefined && Object.hasOwn(PLAN_ENDPOINTS, configured)
    ? (configured as PlanProtocol)
    : "openai-chat";
}

/**
 * The client headers a plan with both endpoints forwards (`forwardedClientHeaders`): the
 * Anthropic ones on its Anthropic endpoint, none beyond `user-agent` on its OpenAI one.
 */
export function planForwardedHeaders(protocol: PlanProtocol): readonly string[] {
  return PLAN_ENDPOINTS[protocol].forwardedClientHeaders;
}

/**
 * The inference request of a plan that offers both an OpenAI-compatible and an
 * Anthropic-compatible endpoint (z.ai, Kimi): `anthropic-messages` → `{base}/v1/messages` with
 * the headers of `anthropicRequestHeaders` (the client's Anthropic headers over the
 * connection's), the secret as `auth` says; `openai-chat` → `{base}/chat/completions` with a
 * Bearer token.
 */
export function planInferenceRequest(
  spec: ConnectorSpec,
  protocol: PlanProtocol,
  baseUrl: string,
  call: ConnectorCall,
  secret: string,
  auth: PlanAuth,
): PreparedRequest {
  const endpoint: PlanEndpoint = PLAN_ENDPOINTS[protocol];
  return endpoint.request(spec, baseUrl, call, secret, auth);
}
