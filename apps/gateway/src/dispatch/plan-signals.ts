import { effectiveOverage } from "@planfirst/connection-billing";
import { isStateStaleForReset } from "@planfirst/quota-cache";
import { isProbeable, type LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import type { PoolLiveState } from "../routing/exclusions";

/**
 * The live lookups of S2b and E4 for a dispatcher: `refreshDue` (a probe holds the connection's
 * lease, its usage refresh is in flight, or its reading is past its reset and can be retaken by a
 * refresh or a probe) and `billingEvidence` (the connection's own fresh evidence `on`, in words).
 */
export function planSignals(
  deps: Pick<GatewayDeps, "quotaCache" | "planRefresh" | "now">,
  ladderOptions: LadderOptions,
  maxStateAgeMs: number,
): Pick<Required<PoolLiveState>, "refreshDue" | "billingEvidence"> {
  const { quotaCache } = deps;
  return {
    refreshDue(provider, connectionId, model) {
      if (quotaCache.isProbeInFlight(connectionId)) return true;
      const planRefresh = deps.planRefresh;
      if (planRefresh?.isPending(connectionId)) return true;
      const reading = quotaCache.get(provider, connectionId, model);
      if (!reading || !isStateStaleForReset(reading, deps.now())) return false;
      if (planRefresh?.hasUsageEndpoint(connectionId)) return true;
      return isProbeable({ provider, model, connectionId }, connectionId, ladderOptions);
    },
    billingEvidence(connectionId) {
      const observations = quotaCache.overageEvidence(connectionId);
      if (observations.length === 0) return undefined;
      const verdict = effectiveOverage(
        { overage: "hard-stop" },
        observations,
        deps.now(),
        maxStateAgeMs,
      );
      if (verdict.basis !== "evidence-on" || !verdict.observation) return undefined;
      const { source, observedAt } = verdict.observation;
      return `its own responses say it bills past its plan (${source ?? "evidence"} at ${observedAt}): kept off auto/subscription while that is fresh (E4)`;
    },
  };
}
