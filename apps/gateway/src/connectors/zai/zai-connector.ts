import type { UpstreamConnector } from "../connector";
import { staticSecret } from "../connector-credential";
import { ConnectorError } from "../connector-error";
import type { ConnectorSpec } from "../connector-spec";
import { planInferenceRequest, planProtocol } from "../plan-request";
import { classifyZaiFailure } from "./zai-failure";
import { parseZaiUsage } from "./zai-usage";

/** The GLM Coding Plan's OpenAI-compatible base. */
export const ZAI_DEFAULT_BASE_URL = "https://api.z.ai/api/coding/paas/v4";

/**
 * A z.ai GLM Coding Plan key: chat completions at `{baseUrl}/chat/completions` with `Bearer`, or
 * with `protocol: anthropic` (base `https://api.z.ai/api/anthropic`) messages with `x-api-key`;
 * usage at `{origin}/api/monitor/usage/quota/limit`, which takes the bare key in `Authorization`
 * (as z.ai's own usage tools send it); 1308 and friends as window exhaustion with the Beijing-time
 * reset. No paid overage exists on the plan, so it never bills after its window.
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
    prepare: (call) => planInferenceRequest(spec, protocol, baseUrl, call, key, "x-api-key"),
    usageRequest: () => ({
      url: usageUrl,
      method: "GET",
      headers: { accept: "application/json", authorization: key },
    }),
    parseUsage: parseZaiUsage,
    classifyFailure: classifyZaiFailure,
    observeHeaders() {
      // z.ai sends no quota headers.
    },
    invalidateCredential() {
      // A static key cannot be renewed.
    },
    billsAfterWindow: () => false,
  };
}
