import type { OverageObservation } from "@planfirst/quota-cache";
import type { UpstreamConnector } from "./connector";

/**
 * Records what a connector learned about billing after its window (Codex credits, Copilot
 * `overage_permitted`) as overage evidence `on`: such a plan can bill, so it is not
 * `auto/subscription`-safe. `false` and `null` record nothing here: null is not a verified hard
 * stop, and a hard stop is the catalog's word, not one reading's.
 */
export function observeBilling(
  deps: {
    quotaCache: { observeEvidence(connectionId: string, observation: OverageObservation): void };
    now: () => number;
  },
  connectionId: string,
  connector: UpstreamConnector,
): void {
  if (connector.billsAfterWindow() !== true) return;
  deps.quotaCache.observeEvidence(connectionId, {
    evidence: "on",
    observedAt: new Date(deps.now()).toISOString(),
    source: "credits",
    detail: `${connector.provider} bills after its window`,
  });
}
