import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayQuotaCache } from "../deps";
import type { ClientIdentity } from "../routing/client-identity";
import type { PoolLiveState } from "../routing/exclusions";
import type { PoolCache, ResolvedModel } from "../routing/pool-cache";
import { earliestPlanReturn, type PlanReturn } from "../routing/pool-reset";
import { probeTargets } from "../routing/probe-targets";
import type { RoutingTable } from "../routing/routing-table";

/** What a waiting request asks of the dispatcher's view of its plans. */
interface PlanWatch {
  /** The plan connection of the pool that comes back first, and when (`earliestPlanReturn`). */
  planReturn(resolution: ResolvedModel, client: ClientIdentity): PlanReturn | undefined;
  /** True when a dispatch now would reach a plan for the request (see `planBack` of the wait). */
  planBack(resolution: ResolvedModel, client: ClientIdentity): boolean;
}

/**
 * The dispatcher's answers to a waiting request (ladder.md §17, WAIT4), from the same pool cache,
 * live state and ladder options its dispatch reads, so "back" means exactly "a dispatch now would
 * reach a plan": for `auto/subscription`, a target in its strict pool, or a plan it may probe
 * whose probe lease is free (P1, P2); for `auto/thrifty` and concrete models, a plan target in
 * the pool again. Synchronous and free of I/O.
 */
export function createPlanWatch(parts: {
  table: RoutingTable;
  pools: PoolCache;
  live: PoolLiveState;
  ladderOptions: LadderOptions;
  quotaCache: Pick<GatewayQuotaCache, "isProbeInFlight">;
}): PlanWatch {
  const { table, pools, live, ladderOptions, quotaCache } = parts;
  return {
    planReturn(resolution) {
      return earliestPlanReturn(table, resolution, live, ladderOptions);
    },
    planBack(resolution, client) {
      const targets = pools.targetsFor(resolution, client);
      if (resolution.grouping !== "subscription") {
        return targets.some((target) => target.rung === "subscription");
      }
      if (targets.length > 0) return true;
      return probeTargets(table, resolution.groups, client, live, ladderOptions).some(
        (target) => !quotaCache.isProbeInFlight(target.connection.config.id),
      );
    },
  };
}
