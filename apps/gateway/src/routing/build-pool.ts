import type { QuotaState } from "@planfirst/quota-cache";
import {
  filterSubscriptionOnlyCandidates,
  type LadderCandidate,
  type LadderOptions,
  type LadderRung,
  orderPoolByRung,
} from "@planfirst/subscription-ladder";
import type { ClientIdentity } from "./client-identity";
import { exclusionOf, type PoolLiveState } from "./exclusions";
import type { CandidateGroup, RoutedConnection, RoutingTable } from "./routing-table";

export type { PoolLiveState };

/** One (model, connection) pair to try, in dispatch order. */
export interface DispatchTarget {
  /** The concrete model id sent upstream. */
  readonly model: string;
  readonly provider: string;
  /** The rung of `model` through `connection` (a plan login and a metered key never share one). */
  readonly rung: LadderRung;
  readonly connection: RoutedConnection;
  /** The (provider, model, rung) group the target came from, with its catalog price. */
  readonly group: CandidateGroup;
}

/**
 * Steps 3–6 of the request flow: candidates from the resolved groups minus cooling and
 * out-of-scope connections, the within-rung order (plan connections whose window resets soonest
 * first, paid rungs cheapest first, else config order), then the ladder, then targets in exactly
 * the ladder's order. Nothing after the ladder re-sorts (THR5).
 *
 * Pure and synchronous: it reads only its arguments (quota readings and cooldowns through
 * `live`, budgets and the clock through `ladderOptions`), so the same inputs always give the same
 * targets. Every request the gateway dispatches, `/v1/ladder` and `planfirst simulate` build
 * their targets here. Empty when nothing may serve (`auto/subscription` fails closed).
 */
export function buildTargets(
  table: RoutingTable,
  groups: readonly CandidateGroup[],
  grouping: "subscription" | "thrifty",
  client: ClientIdentity,
  live: PoolLiveState,
  ladderOptions: LadderOptions,
): DispatchTarget[] {
  const { candidates, pool } = candidatePool(groups, client, live);
  const laddered =
    grouping === "subscription"
      ? filterSubscriptionOnlyCandidates(pool, ladderOptions)
      : orderPoolByRung(pool, ladderOptions);

  const groupOf = new Map<string, CandidateGroup>();
  for (const { group } of candidates) {
    groupOf.set(`${group.provider}\u0000${group.model}\u0000${group.rung}`, group);
  }
  const targets: DispatchTarget[] = [];
  for (const candidate of laddered) {
    const ids =
      candidate.allowedConnectionIds ?? (candidate.connectionId ? [candidate.connectionId] : []);
    for (const id of ids) {
      const connection = table.connections.get(id);
      const rung = table.rungOf(id, candidate.model);
      if (!connection || !rung) continue;
      const group = groupOf.get(`${candidate.provider}\u0000${candidate.model}\u0000${rung}`);
      if (!group) continue;
      targets.push({
        model: candidate.model,
        provider: candidate.provider,
        rung,
        connection,
        group,
      });
    }
  }
  return targets;
}

/** The pool handed to the ladder, and the group behind each of its candidates (same index). */
interface CandidatePool {
  readonly candidates: readonly { group: CandidateGroup; ids: string[]; key: number }[];
  readonly pool: LadderCandidate[];
}

/**
 * Steps 3–5: the candidates of `groups` minus the connections the gateway keeps out (client
 * scope, cooldown), in the within-rung order, before the ladder. `buildTargets` and the probe
 * path (`probeTargets`) both start from it, so a probe never reaches a cooling connection.
 */
export function candidatePool(
  groups: readonly CandidateGroup[],
  client: ClientIdentity,
  live: PoolLiveState,
): CandidatePool {
  const candidates: { group: CandidateGroup; ids: string[]; key: number }[] = [];
  for (const group of groups) {
    let ids: string[] | null = null;
    for (const id of group.connectionIds) {
      const usable = exclusionOf(live, client, id, group.model) === null;
      if (!usable) {
        ids ??= group.connectionIds.slice(0, group.connectionIds.indexOf(id));
      } else if (ids !== null) {
        ids.push(id);
      }
    }
    const allowed = ids ?? (group.connectionIds as string[]);
    if (allowed.length === 0) continue;
    let key = group.order;
    let ordered = allowed;
    if (group.rung === "subscription") {
      // Use it or lose it: the plan whose window resets soonest goes first.
      const resets = allowed.map((id) => resetMs(live.quotaState(group.provider, id, group.model)));
      if (allowed.length > 1) {
        const order = allowed.map((_, i) => i).sort((a, b) => resets[a]! - resets[b]! || a - b);
        ordered = order.map((i) => allowed[i]!);
      }
      key = Math.min(...resets);
    } else if (group.rung === "cheap" || group.rung === "premium") {
      key = group.blendedPricePerMTok;
    }
    candidates.push({ group, ids: ordered, key });
  }
  candidates.sort(
    (a, b) =>
      a.group.rungIndex - b.group.rungIndex ||
      compareKeys(a.key, b.key) ||
      a.group.order - b.group.order,
  );

  const pool: LadderCandidate[] = candidates.map(({ group, ids }) => ({
    provider: group.provider,
    model: group.model,
    connectionId: null,
    allowedConnectionIds: ids,
  }));
  return { candidates, pool };
}

function compareKeys(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function resetMs(state: QuotaState | undefined): number {
  if (!state?.resetAt) return Infinity;
  const ms = Date.parse(state.resetAt);
  return Number.isNaN(ms) ? Infinity : ms;
}
