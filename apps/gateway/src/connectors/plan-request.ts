import type { ProtocolName } from "../protocols";
import {
  ANTHROPIC_FORWARDED_HEADERS,
  ANTHROPIC_VERSION,
  anthropicMessagesUrl,
} from "./anthropic/anthropic-connector";
import type { ConnectorCall, PreparedRequest } from "./connector";
import { joinUrl } from "./connector";
import type { ConnectorSpec } from "./connector-spec";
import { baseRequestHeaders } from "./request-headers";

/** How a plan's secret travels: as `x-api-key`, or as a Bearer token. */
export type PlanAuth = "x-api-key" | "bearer";

type PlanEndpoint = (
  spec: ConnectorSpec,
  baseUrl: string,
  call: ConnectorCall,
  secret: string,
  auth: PlanAuth,
) => PreparedRequest;

/** The two endpoints of a plan that offers both wires, by protocol. */
const PLAN_ENDPOINTS = {
  "openai-chat": (spec, baseUrl, call, secret) => {
    const headers = baseRequestHeaders(call, spec.headers);
    headers.authorization = `Bearer ${secret}`;
    return { url: joinUrl(baseUrl, "/chat/completions"), headers };
  },
  "anthropic-messages": (spec, baseUrl, call, secret, auth) => {
    const headers = baseRequestHeaders(call, spec.headers, ANTHROPIC_FORWARDED_HEADERS);
    headers["anthropic-version"] ??= ANTHROPIC_VERSION;
    if (auth === "x-api-key") headers["x-api-key"] = secret;
    else headers.authorization = `Bearer ${secret}`;
    return { url: anthropicMessagesUrl(baseUrl), headers };
  },
} satisfies Partial<Record<ProtocolName, PlanEndpoint>>;

/** A wire a dual-endpoint plan (z.ai, Kimi) speaks. */
export type PlanProtocol = keyof typeof PLAN_ENDPOINTS;

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
 * The inference request of a plan that offers both an OpenAI-compatible and an
 * Anthropic-compatible endpoint (z.ai, Kimi): `anthropic-messages` → `{base}/v1/messages` with
 * `anthropic-version` and the client's Anthropic headers forwarded, the secret as `auth` says;
 * `openai-chat` → `{base}/chat/completions` with a Bearer token.
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
  return endpoint(spec, baseUrl, call, secret, auth);
}
