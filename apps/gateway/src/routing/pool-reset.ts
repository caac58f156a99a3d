import { earliestUsefulReset, type LadderOptions } from "@planfirst/subscription-ladder";
import type { PoolLiveState } from "./exclusions";
import type { ModelResolution, RoutingTable } from "./routing-table";

/**
 * The earliest instant (epoch ms) a connection of this resolution could serve again, or
 * undefined when nothing says: the earliest useful plan reset (`earliestUsefulReset`, so the
 * re-entry floor counts) and, for ids that are not plan-only, the end of a cooldown.
 * `auto/subscription` looks at plan connections only: a metered connection's return is no
 * reason for its client to come back. Shared by the exhausted-pool answer and `/v1/ladder`.
 */
export function earliestPoolReturnMs(
  table: RoutingTable,
  resolution: Extract<ModelResolution, { ok: true }>,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
): number | undefined {
  const nowMs = (ladderOptions.now ?? Date.now)();
  const readings = [];
  let earliest = Infinity;
  for (const group of resolution.groups) {
    for (const id of group.connectionIds) {
      const connection = table.connections.get(id);
      if (!connection) continue;
      const isPlan = connection.billing.billing === "subscription";
      if (resolution.grouping === "subscription" && !isPlan) continue;
      readings.push(live.quotaState(group.provider, id, group.model));
      const until = toMs(live.cooldownUntil?.(id, group.model));
      if (until !== null && until > nowMs && until < earliest) earliest = until;
    }
  }
  const reset = earliestUsefulReset(readings, ladderOptions);
  if (reset !== undefined && reset < earliest) earliest = reset;
  return Number.isFinite(earliest) ? earliest : undefined;
}

function toMs(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
