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
  const nowMs = (ladderOptions.now ?? Date.now)();
  const readings = [];
  let earliest = Infinity;
  for (const group of resolution.groups) {
    for (const id of group.connectionIds) {
      const connection = table.connections.get(id);
      if (!connection) continue;
      const isPlan = connection.billing.billing === "subscription";
      if (resolution.grouping === "subscription" && !isPlan) continue;
      const until = toMs(live.cooldownUntil?.(id, group.model));
      const cooling = until !== null && until > nowMs;
      if (cooling && until < earliest) earliest = until;
      if (isPlan && !cooling && live.refreshDue?.(group.provider, id, group.model)) {
        earliest = Math.min(earliest, nowMs + SOON_MS);
        continue;
      }
      const reading = live.quotaState(group.provider, id, group.model);
      if (reading && !isStateStaleForReset(reading, nowMs)) readings.push(reading);
    }
  }
  const reset = earliestUsefulReset(readings, ladderOptions);
  if (reset !== undefined && reset < earliest) earliest = reset;
  return Number.isFinite(earliest) ? earliest : undefined;
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
