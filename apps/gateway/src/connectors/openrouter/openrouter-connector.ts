import { parseOpenRouterKey, parseOpenRouterResponse } from "@planfirst/quota-cache";
import { joinUrl, type UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { baseRequestHeaders } from "../request-headers";

/** Default OpenRouter API base. */
export const OPENROUTER_DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";

/**
 * OpenRouter: `{baseUrl}/chat/completions` with `Authorization: Bearer`, key limits polled at
 * `{origin}/api/v1/key`, failures (free-model daily caps, 402 credits) from quota-cache's
 * OpenRouter parser. Metered: it bills per token.
 */
export function createOpenRouterConnector(spec: ConnectorSpec): UpstreamConnector {
  const key = staticSecret(spec);
  if (key === null) {
    throw new ConnectorError({
      code: "credential_missing",
      message: `connection ${spec.id}: OpenRouter needs credential env:NAME`,
      connectionId: spec.id,
    });
  }
  const baseUrl = spec.baseUrl ?? OPENROUTER_DEFAULT_BASE_URL;
  const url = joinUrl(baseUrl, "/chat/completions");
  const usageUrl = spec.usageUrl ?? `${new URL(baseUrl).origin}/api/v1/key`;
  return {
    provider: "openrouter",
    protocol: "openai-chat",
    prepare(call) {
      const headers = baseRequestHeaders(call, spec.headers);
      headers.authorization = `Bearer ${key}`;
      return { url, headers };
    },
    usageRequest: () => ({
      url: usageUrl,
      method: "GET",
      headers: { accept: "application/json", authorization: `Bearer ${key}` },
    }),
    parseUsage: (payload, observedAtMs) => parseOpenRouterKey(payload, observedAtMs),
    classifyFailure(status, headers, body, observedAtMs) {
      return parseOpenRouterResponse({ status, headers, body, observedAtMs }).failure ?? null;
    },
    observeHeaders() {
      // Metered per token: nothing to learn.
    },
    invalidateCredential() {
      // A static key cannot be renewed.
    },
    billsAfterWindow: () => true,
  };
}
