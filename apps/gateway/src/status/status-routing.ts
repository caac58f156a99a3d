import { explainModel, explainSourceOf } from "../routing/explain-model";
import type { StatusSource as AppContext } from "./status-source";

/** The routing ids whose verdicts and last-served rung the status shows. */
const STATUS_ROUTING_IDS = ["auto/subscription", "auto/thrifty"] as const;

/** Why a connection is out of a routing id's pool: the words of `/v1/ladder`. */
export interface StatusExclusion {
  routingId: string;
  model: string;
  reason: string;
}

/** `earliestReturnAt` of each status routing id, as `/v1/ladder` computes it. */
export function returnTimes(app: AppContext): Record<string, string | null> {
  const source = explainSourceOf(app);
  const times: Record<string, string | null> = {};
  for (const routingId of STATUS_ROUTING_IDS) {
    try {
      times[routingId] = explainModel(source, routingId).earliestReturnAt;
    } catch {
      times[routingId] = null;
    }
  }
  return times;
}

/**
 * Why each connection is out of each status routing id's pool. The same explanation
 * `/v1/ladder` gives (explainModel), so the page and the ladder route use the same words for why
 * a connection is out.
 */
export function exclusionsByConnection(app: AppContext): Map<string, StatusExclusion[]> {
  const byConnection = new Map<string, StatusExclusion[]>();
  const add = (connectionId: string, entry: StatusExclusion) => {
    const list = byConnection.get(connectionId) ?? [];
    if (!list.some((e) => e.routingId === entry.routingId && e.reason === entry.reason)) {
      list.push(entry);
    }
    byConnection.set(connectionId, list);
  };
  const source = explainSourceOf(app);
  for (const routingId of STATUS_ROUTING_IDS) {
    let explanation: ReturnType<typeof explainModel>;
    try {
      explanation = explainModel(source, routingId);
    } catch {
      continue;
    }
    for (const excluded of explanation.excluded) {
      add(excluded.connectionId, {
        routingId,
        model: excluded.model,
        reason: excluded.reason,
      });
    }
    for (const candidate of explanation.ladder.candidates) {
      for (const connection of candidate.connections) {
        if (connection.verdict !== "out" || connection.connectionId === null) continue;
        add(connection.connectionId, {
          routingId,
          model: connection.model,
          reason: connection.reason,
        });
      }
    }
  }
  return byConnection;
}
