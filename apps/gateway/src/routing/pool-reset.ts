import { isStateStaleForReset } from "@planfirst/quota-cache";
import { earliestUsefulReset, type LadderOptions } from "@planfirst/subscription-ladder";
import type { PoolLiveState } from "./exclusions";
import type { ModelResolution, RoutingTable } from "./routing-table";

/**
 * The earliest instant (epoch ms) a connection of this resolution could serve again, or
 * undefined when nothing says: the earliest useful plan reset (`earliestUsefulReset`, so the
 * re-entry floor counts) and, for ids that are not plan-only, the end of a cooldown.
 * `auto/subscription` looks at plan connections only: a metered connection's return is no
 * reason for its client to come back. Shared by the exhausted-pool answer and `/v1/ladder`.
 *
 * S2b: a reading past its reset is never used (its other windows' resets would send the client
 * away for days while the window that bound has already come back); while a refresh or probe of
 * a plan connection is due or in flight (`live.refreshDue`), the answer is one second from now.
 */
export function earliestPoolReturnMs(
  table: RoutingTable,
  resolution: Extract<ModelResolution, { ok: true }>,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
): number | undefined {
  return earliestReturn(table, resolution, live, ladderOptions, resolution.grouping)?.atMs;
}

/** When a plan connection comes back, and which one. */
export interface PlanReturn {
  readonly connectionId: string;
  /** Epoch milliseconds. */
  readonly atMs: number;
}

/**
 * The plan connection of this resolution that comes back first and when, by the same rules as
 * {@link earliestPoolReturnMs} applied to plan connections only, whatever the grouping (what a
 * request waits for before it is refused or climbs to a paid rung); undefined when no plan
 * connection's return is known. Ties go to the connection met first in pool order.
 */
export function earliestPlanReturn(
  table: RoutingTable,
  resolution: Extract<ModelResolution, { ok: true }>,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
): PlanReturn | undefined {
  return earliestReturn(table, resolution, live, ladderOptions, "subscription");
}

function earliestReturn(
  table: RoutingTable,
  resolution: Extract<ModelResolution, { ok: true }>,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
  scope: "subscription" | "thrifty",
): PlanReturn | undefined {
  const nowMs = (ladderOptions.now ?? Date.now)();
  let earliest: PlanReturn | undefined;
  const consider = (connectionId: string, atMs: number | undefined) => {
    if (atMs !== undefined && (earliest === undefined || atMs < earliest.atMs)) {
      earliest = { connectionId, atMs };
    }
  };
  for (const group of resolution.groups) {
    for (const id of group.connectionIds) {
      const connection = table.connections.get(id);
      if (!connection) continue;
      const isPlan = connection.billing.billing === "subscription";
      if (scope === "subscription" && !isPlan) continue;
      const until = toMs(live.cooldownUntil?.(id, group.model));
      const cooling = until !== null && until > nowMs;
      if (cooling) consider(id, until);
      if (isPlan && !cooling && live.refreshDue?.(group.provider, id, group.model)) {
        consider(id, nowMs + SOON_MS);
        continue;
      }
      const reading = live.quotaState(group.provider, id, group.model);
      if (reading && !isStateStaleForReset(reading, nowMs)) {
        consider(id, earliestUsefulReset([reading], ladderOptions));
      }
    }
  }
  return earliest;
}

/** How soon a client may come back while a plan's refresh or probe is due: `Retry-After: 1`. */
const SOON_MS = 1_000;

function toMs(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
