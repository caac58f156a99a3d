import type { ClientIdentity } from "../routing/client-identity";
import type { GatewayStatus } from "./gateway-status";
import type { HistoryBucket } from "./history-store";

/**
 * The status as a client key sees it: a key limited to some connections sees only those (their
 * cards, readings, cooldowns and last-served entries), never that other connections exist.
 * Budgets are per rung, not per connection, and stay. An unlimited key gets `status` itself.
 */
export function statusForClient(status: GatewayStatus, client: ClientIdentity): GatewayStatus {
  const visible = client.connections;
  if (visible === null) return status;
  const lastServed: GatewayStatus["lastServed"] = {};
  for (const [routingId, served] of Object.entries(status.lastServed)) {
    if (visible.has(served.connection)) lastServed[routingId] = served;
  }
  return {
    ...status,
    connections: status.connections.filter((connection) => visible.has(connection.id)),
    lastServed,
  };
}

/** The history a client key may see: remaining-percent series of its own connections only. */
export function historyForClient(
  buckets: readonly HistoryBucket[],
  client: ClientIdentity,
): HistoryBucket[] {
  const visible = client.connections;
  if (visible === null) return [...buckets];
  return buckets.map((bucket) => {
    const levels: HistoryBucket["levels"] = {};
    for (const [series, reading] of Object.entries(bucket.levels)) {
      const connection = series.startsWith("remaining:") ? series.split(":")[1] : undefined;
      if (connection === undefined || visible.has(connection)) levels[series] = reading;
    }
    return { ...bucket, levels };
  });
}
