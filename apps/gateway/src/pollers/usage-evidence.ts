import { parseUsageSignals } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { GatewayQuotaCache } from "../deps";
import { reportImplausibleTimes } from "../observability/implausible-times";
import type { GatewayMetrics } from "../observability/metrics";

/**
 * What a usage payload says beyond its windows: its overage evidence (Claude
 * `extra_usage.is_enabled`, Codex credits, Copilot `overage_permitted`) goes to the quota cache for
 * the connection that was polled, and every time it carried beyond what its window allows is
 * counted and warned about once. The windows themselves are the poller's.
 */
export function observeUsageEvidence(
  deps: {
    quotaCache: Pick<GatewayQuotaCache, "observeEvidence">;
    logger: Logger;
    metrics?: GatewayMetrics;
  },
  connectionId: string,
  provider: string,
  payload: unknown,
  observedAtMs: number,
): void {
  const signals = parseUsageSignals(provider, payload, observedAtMs);
  if (signals.evidence) deps.quotaCache.observeEvidence(connectionId, signals.evidence);
  if (deps.metrics)
    reportImplausibleTimes({ ...deps, metrics: deps.metrics }, connectionId, signals.implausible);
}
