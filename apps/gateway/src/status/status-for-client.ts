import { type ClientIdentity, isAdmin } from "../routing/client-identity";
import type { GatewayStatus } from "./gateway-status";
import type { HistoryBucket } from "./history-store";

/** What a client key's view shows of its own, read from the spend records of its key id. */
interface ClientOwnSpend {
  /** Its settled spend per paid rung in the current budget window, USD (`keyRungSpendUsd`). */
  spendUsd: Readonly<Record<string, number>>;
  /** Its prompt-cache reads per paid rung in the last hour (`cacheReadsLastHour`). */
  cacheReads: GatewayStatus["cacheReadsLastHour"];
}

/**
 * The status as a client key sees it. An admin key gets `status` itself. A client key sees only
 * its own spend: each paid rung's budget with its own settled spend (`ofKey`) where the status
 * has every key's, the cache reads of its own requests, and its own key budget alone. A key
 * limited to some connections also sees only those (their cards, readings, cooldowns and
 * last-served entries), never that other connections exist.
 */
export function statusForClient(
  status: GatewayStatus,
  client: ClientIdentity,
  own: ClientOwnSpend,
): GatewayStatus {
  if (isAdmin(client)) return status;
  const visible = client.connections;
  const budgets = status.budgets.map((budget) => ({
    ...budget,
    spentUsd: own.spendUsd[budget.rung] ?? 0,
    reservedUsd: 0,
    ofKey: client.id,
  }));
  const keyBudgets = status.keyBudgets.filter((budget) => budget.key === client.id);
  const mine = { budgets, keyBudgets, cacheReadsLastHour: own.cacheReads };
  if (visible === null) return { ...status, ...mine };
  const lastServed: GatewayStatus["lastServed"] = {};
  for (const [routingId, served] of Object.entries(status.lastServed)) {
    if (visible.has(served.connection)) lastServed[routingId] = served;
  }
  return {
    ...status,
    ...mine,
    connections: status.connections.filter((connection) => visible.has(connection.id)),
    lastServed,
  };
}

/**
 * The history a client key may see: no spend series (they are every key's), and of the
 * remaining-percent series only those of its own connections. An admin key sees all of it.
 */
export function historyForClient(
  buckets: readonly HistoryBucket[],
  client: ClientIdentity,
): HistoryBucket[] {
  if (isAdmin(client)) return [...buckets];
  const visible = client.connections;
  return buckets.map((bucket) => {
    const levels: HistoryBucket["levels"] = {};
    for (const [series, reading] of Object.entries(bucket.levels)) {
      if (!series.startsWith("remaining:")) continue;
      const connection = series.split(":")[1];
      if (visible === null || (connection !== undefined && visible.has(connection))) {
        levels[series] = reading;
      }
    }
    return { ...bucket, levels };
  });
}
