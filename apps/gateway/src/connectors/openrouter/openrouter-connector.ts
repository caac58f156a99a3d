import { parseOpenRouterKey, parseOpenRouterResponse } from "@planfirst/quota-cache";
import { joinUrl, type UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { meteredEvidence } from "../metered-evidence";
import { answerReader, usageReading } from "../read-signals";
import { baseRequestHeaders } from "../request-headers";

/** Default OpenRouter API base. */
const OPENROUTER_DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";

/**
 * OpenRouter: `{baseUrl}/chat/completions` with `Authorization: Bearer`, key limits polled at
 * `{origin}/api/v1/key`, answers (free-model daily caps, 402 credits) read by quota-cache's
 * OpenRouter parsers (quota-signals.md §8). Metered: it bills per token, so its answers and key
 * readings carry overage evidence `on`.
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
  const read = answerReader(parseOpenRouterResponse);
  const billed = meteredEvidence("an OpenRouter key bills every request");
  return {
    provider: "openrouter",
    protocol: "openai-chat",
    forwardedClientHeaders: [],
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
    readUsage: (payload, observedAtMs) =>
      usageReading(parseOpenRouterKey(payload, observedAtMs), billed(observedAtMs)),
    readResponse(answer) {
      const signals = read(answer);
      signals.evidence = billed(answer.observedAtMs);
      return signals;
    },
    invalidateCredential() {
      // A static key cannot be renewed.
    },
  };
}
