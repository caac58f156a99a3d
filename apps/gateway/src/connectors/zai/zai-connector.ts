import { parseGenericResponse } from "@planfirst/quota-cache";
import type { UpstreamConnector, UsageReading } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { planForwardedHeaders, planInferenceRequest, planProtocol } from "../plan-request";
import { answerReaderWith } from "../read-signals";
import { classifyZaiFailure } from "./zai-failure";
import { parseZaiUsage, zaiUsageRefusal } from "./zai-usage";

/** The GLM Coding Plan's OpenAI-compatible base. */
const ZAI_DEFAULT_BASE_URL = "https://api.z.ai/api/coding/paas/v4";

/**
 * A z.ai GLM Coding Plan key: chat completions at `{baseUrl}/chat/completions` with `Bearer`, or
 * with `protocol: anthropic` (base `https://api.z.ai/api/anthropic`) messages with `x-api-key`;
 * usage at `{origin}/api/monitor/usage/quota/limit`, which takes the bare key in `Authorization`
 * (as z.ai's own usage tools send it), whose refusal inside a 200 is read as such; 1308 and
 * friends as window exhaustion with the Beijing-time reset (quota-signals.md §14). No paid
 * overage exists on the plan and no live signal says so: its hard stop is the catalog's word.
 */
export function createZaiConnector(spec: ConnectorSpec): UpstreamConnector {
  const key = staticSecret(spec);
  if (key === null) {
    throw new ConnectorError({
      code: "credential_missing",
      message: `connection ${spec.id}: z.ai needs credential env:NAME`,
      connectionId: spec.id,
    });
  }
  const baseUrl = spec.baseUrl ?? ZAI_DEFAULT_BASE_URL;
  const protocol = planProtocol(spec);
  const usageUrl = spec.usageUrl ?? `${new URL(baseUrl).origin}/api/monitor/usage/quota/limit`;
  return {
    provider: "zai",
    protocol,
    forwardedClientHeaders: planForwardedHeaders(protocol),
    prepare: (call) => planInferenceRequest(spec, protocol, baseUrl, call, key, "x-api-key"),
    usageRequest: () => ({
      url: usageUrl,
      method: "GET",
      headers: { accept: "application/json", authorization: key },
    }),
    readUsage(payload, observedAtMs) {
      const reading: UsageReading = { windows: parseZaiUsage(payload, observedAtMs) };
      const refusal = zaiUsageRefusal(payload);
      if (refusal !== null) reading.refusal = refusal;
      return reading;
    },
    // z.ai's business codes (1308…) ride in error bodies the generic parser does not know.
    readResponse: answerReaderWith(parseGenericResponse, classifyZaiFailure),
    invalidateCredential() {
      // A static key cannot be renewed.
    },
  };
}
