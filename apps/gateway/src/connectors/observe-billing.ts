import { EVIDENCE_REWRITE_INTERVAL_MS, type OverageObservation } from "@planfirst/quota-cache";
import type { UpstreamConnector } from "./connector";

/**
 * When each connector last handed its `on` to the quota cache. A connector that bills after its
 * window says so on every answer (an OpenRouter or Anthropic key, Codex with credits); the cache
 * does not rewrite a repeat younger than {@link EVIDENCE_REWRITE_INTERVAL_MS}, so such a repeat
 * is not even built here: on the paid path that is a date, a string and a store lookup per
 * request saved. The first `on` of a connector, and every one after the interval, still goes.
 */
const lastOnMs = new WeakMap<UpstreamConnector, number>();

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
  const nowMs = deps.now();
  const last = lastOnMs.get(connector);
  if (last !== undefined && nowMs >= last && nowMs - last < EVIDENCE_REWRITE_INTERVAL_MS) return;
  lastOnMs.set(connector, nowMs);
  deps.quotaCache.observeEvidence(connectionId, {
    evidence: "on",
    observedAt: new Date(nowMs).toISOString(),
    source: "credits",
    detail: `${connector.provider} bills after its window`,
  });
}
