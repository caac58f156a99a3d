import {
  ANTHROPIC_FORWARDED_HEADERS,
  anthropicMessagesUrl,
  anthropicRequestHeaders,
} from "./anthropic/anthropic-connector";
import type { ConnectorCall, PreparedRequest } from "./connector";
import { joinUrl } from "./connector";
import type { ConnectorSpec } from "./connector-spec";
import { baseRequestHeaders } from "./request-headers";

/**
 * The client headers a plan with both endpoints forwards (`forwardedClientHeaders`): the
 * Anthropic ones on its Anthropic endpoint, none beyond `user-agent` on its OpenAI one.
 */
export function planForwardedHeaders(protocol: "openai" | "anthropic"): readonly string[] {
  return protocol === "anthropic" ? ANTHROPIC_FORWARDED_HEADERS : [];
}

/**
 * The inference request of a plan that offers both an OpenAI-compatible and an
 * Anthropic-compatible endpoint (z.ai, Kimi): `anthropic` → `{base}/v1/messages` with the
 * headers of `anthropicRequestHeaders` (the client's Anthropic headers over the connection's);
 * `openai` → `{base}/chat/completions`. `auth` says how the secret travels: `x-api-key` or
 * `Bearer`.
 */
export function planInferenceRequest(
  spec: ConnectorSpec,
  protocol: "openai" | "anthropic",
  baseUrl: string,
  call: ConnectorCall,
  secret: string,
  auth: "x-api-key" | "bearer",
): PreparedRequest {
  if (protocol === "anthropic") {
    const headers = anthropicRequestHeaders(call, spec.headers);
    if (auth === "x-api-key") headers["x-api-key"] = secret;
    else headers.authorization = `Bearer ${secret}`;
    return { url: anthropicMessagesUrl(baseUrl), headers };
  }
  const headers = baseRequestHeaders(call, spec.headers);
  headers.authorization = `Bearer ${secret}`;
  return { url: joinUrl(baseUrl, "/chat/completions"), headers };
}
