import {
  ANTHROPIC_FORWARDED_HEADERS,
  ANTHROPIC_VERSION,
  anthropicMessagesUrl,
} from "./anthropic/anthropic-connector";
import type { ConnectorCall, PreparedRequest } from "./connector";
import { joinUrl } from "./connector";
import type { ConnectorSpec } from "./connector-spec";
import { baseRequestHeaders } from "./request-headers";

/**
 * The inference request of a plan that offers both an OpenAI-compatible and an
 * Anthropic-compatible endpoint (z.ai, Kimi): `anthropic` → `{base}/v1/messages` with
 * `anthropic-version` and the client's Anthropic headers forwarded; `openai` →
 * `{base}/chat/completions`. `auth` says how the secret travels: `x-api-key` or `Bearer`.
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
    const headers = baseRequestHeaders(call, spec.headers, ANTHROPIC_FORWARDED_HEADERS);
    headers["anthropic-version"] ??= ANTHROPIC_VERSION;
    if (auth === "x-api-key") headers["x-api-key"] = secret;
    else headers.authorization = `Bearer ${secret}`;
    return { url: anthropicMessagesUrl(baseUrl), headers };
  }
  const headers = baseRequestHeaders(call, spec.headers);
  headers.authorization = `Bearer ${secret}`;
  return { url: joinUrl(baseUrl, "/chat/completions"), headers };
}
