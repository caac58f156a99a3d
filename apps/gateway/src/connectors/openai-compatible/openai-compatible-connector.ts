import {
  parseGenericResponse,
  type ResponseSignalParser,
  type UsagePayloadParser,
} from "@planfirst/quota-cache";
import { joinUrl, type UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { answerReader } from "../read-signals";
import { baseRequestHeaders } from "../request-headers";

/** Options of {@link createOpenAiCompatibleConnector}. */
interface OpenAiCompatibleConnectorOptions {
  /**
   * The API served: `chat` (`{baseUrl}/chat/completions`, protocol `openai`) or `responses`
   * (`{baseUrl}/responses`, protocol `openai-responses`). Default `chat`.
   */
  api?: "chat" | "responses";
  /**
   * How answers are read. Default quota-cache's generic OpenAI-compatible parser
   * (`x-ratelimit-*`, `Retry-After`, the IETF `RateLimit` fields, OpenAI-style error bodies),
   * given the connection's provider id (Groq's requests window counts per day).
   */
  readAnswer?: ResponseSignalParser;
  /** How a `usageUrl` payload is read. Default: it gives no window. */
  readUsage?: UsagePayloadParser;
}

/**
 * Any OpenAI-compatible server (groq, deepseek, mistral, ollama, vLLM…): chat completions at
 * `{baseUrl}/chat/completions`, or the Responses API at `{baseUrl}/responses`, with
 * `Authorization: Bearer` and a static key, or nothing for `authType: none` (keyless). A usage
 * endpoint only when `usageUrl` is configured. Claims nothing about billing: its answers carry no
 * overage evidence. `prepare` is always synchronous.
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
  const provider = spec.provider.trim().toLowerCase();
  const readUsage = options.readUsage;
  return {
    provider: spec.provider,
    protocol: responses ? "openai-responses" : "openai-chat",
    forwardedClientHeaders: [],
    // OpenAI's own API takes `prompt_cache_key`; an unknown compatible server may refuse it.
    acceptsPromptCacheKey: provider === "openai",
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
    readUsage: (payload, observedAtMs) => ({
      windows: readUsage ? readUsage(payload, observedAtMs) : [],
    }),
    readResponse: answerReader(
      // Object.assign, not a spread: a key added to a spread copy costs a new hidden class on
      // every answer (AGENTS.md, "Hot paths").
      options.readAnswer ??
        ((answer) => parseGenericResponse(Object.assign({}, answer, { provider }))),
    ),
    invalidateCredential() {
      // Static or no key: nothing to renew.
    },
  };
}
