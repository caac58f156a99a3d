import { parseResponseSignals, parseUsagePayload } from "@planfirst/quota-cache";
import { joinUrl, type UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { baseRequestHeaders } from "../request-headers";

/** Options of {@link createOpenAiCompatibleConnector}. */
export interface OpenAiCompatibleConnectorOptions {
  /**
   * The API served: `chat` (`{baseUrl}/chat/completions`, protocol `openai`) or `responses`
   * (`{baseUrl}/responses`, protocol `openai-responses`). Default `chat`.
   */
  api?: "chat" | "responses";
}

/**
 * Any OpenAI-compatible server (groq, deepseek, mistral, ollama, vLLM…): chat completions at
 * `{baseUrl}/chat/completions`, or the Responses API at `{baseUrl}/responses`, with
 * `Authorization: Bearer` and a static key, or nothing for `authType: none` (keyless). A usage
 * endpoint only when `usageUrl` is configured. Failures left to quota-cache's parser for the
 * provider id (the generic OpenAI-compatible one for an id it does not know). `prepare` is
 * always synchronous.
 */
export function createOpenAiCompatibleConnector(
  spec: ConnectorSpec,
  options: OpenAiCompatibleConnectorOptions = {},
): UpstreamConnector {
  if (!spec.baseUrl) {
    throw new ConnectorError({
      code: "invalid_connector_config",
      message: `connection ${spec.id}: an OpenAI-compatible connection needs baseUrl`,
      connectionId: spec.id,
    });
  }
  const keyless = spec.authType === "none";
  const key = keyless ? null : staticSecret(spec);
  if (!keyless && key === null) {
    throw new ConnectorError({
      code: "credential_missing",
      message: `connection ${spec.id}: authType ${spec.authType} needs credential env:NAME (use authType none for a keyless server)`,
      connectionId: spec.id,
    });
  }
  const responses = options.api === "responses";
  const url = joinUrl(spec.baseUrl, responses ? "/responses" : "/chat/completions");
  return {
    provider: spec.provider,
    protocol: responses ? "openai-responses" : "openai",
    prepare(call) {
      const headers = baseRequestHeaders(call, spec.headers);
      if (key) headers.authorization = `Bearer ${key}`;
      return { url, headers };
    },
    usageRequest() {
      if (!spec.usageUrl) return null;
      const headers: Record<string, string> = { accept: "application/json" };
      if (key) headers.authorization = `Bearer ${key}`;
      return { url: spec.usageUrl, method: "GET", headers };
    },
    parseUsage: (payload, observedAtMs) => parseUsagePayload(spec.provider, payload, observedAtMs),
    classifyFailure(status, headers, body, observedAtMs) {
      return (
        parseResponseSignals(spec.provider, { status, headers, body, observedAtMs }).failure ?? null
      );
    },
    observeHeaders() {
      // No billing evidence in generic headers.
    },
    invalidateCredential() {
      // Static or no key: nothing to renew.
    },
    billsAfterWindow: () => (keyless ? false : null),
  };
}
