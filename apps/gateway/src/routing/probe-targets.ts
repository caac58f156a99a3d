import { findProbeableConnections, type LadderOptions } from "@planfirst/subscription-ladder";
import { candidatePool, type DispatchTarget } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import type { PoolLiveState } from "./exclusions";
import type { CandidateGroup, RoutingTable } from "./routing-table";

/**
 * P1/P5: the plan connections `auto/subscription` may send one request to as a probe, in pool
 * order: billed exactly as a subscription, effective overage `hard-stop` (catalog or operator
 * value refined by live evidence, E3), no fresh reading, and not kept out by the gateway
 * (client scope, cooldown). Each is a target bound to that one connection. Empty for a pool
 * whose every plan has a reading: the ladder decides those.
 */
export function probeTargets(
  table: RoutingTable,
  groups: readonly CandidateGroup[],
  client: ClientIdentity,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
): DispatchTarget[] {
  const { candidates, pool } = candidatePool(groups, client, live);
  const targets: DispatchTarget[] = [];
  for (const probeable of findProbeableConnections(pool, ladderOptions)) {
    const id = probeable.connectionId;
    if (id === null) continue;
    const group = candidates[probeable.position]?.group;
    const connection = table.connections.get(id);
    // Only rung 0 is ever probed: a probe is a request that cannot bill (P5).
    if (!group || !connection || group.rung !== "subscription") continue;
    if (table.rungOf(id, group.model) !== "subscription") continue;
    targets.push({
      model: group.model,
      provider: group.provider,
      rung: "subscription",
      connection,
      group,
    });
  }
  return targets;
}
