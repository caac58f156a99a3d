import {
  explainPool,
  type LadderCandidate,
  type LadderOptions,
} from "@planfirst/subscription-ladder";
import { GatewayError } from "../errors";
import { buildTargets, type PoolLiveState } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import type { CandidateGroup, RoutingTable } from "./routing-table";

/** Why the gateway itself kept a connection out before the ladder ran. */
export interface GatewayExclusion {
  connectionId: string;
  model: string;
  reason: string;
}

/** What `GET /v1/ladder?model=ID` returns (and what the CLI's `explain` prints). */
export interface ModelExplanation {
  /** The requested id. */
  model: string;
  kind: "concrete" | "auto";
  grouping: "subscription" | "thrifty";
  category: string | null;
  /** Epoch milliseconds the explanation was computed at. */
  evaluatedAtMs: number;
  /** The ladder's own explanation (`explainPool`): every candidate and connection, in or out, why. */
  ladder: ReturnType<typeof explainPool>;
  /** Connections out before the ladder: disabled (credential unset), cooling down, or outside the client key. */
  excluded: GatewayExclusion[];
  /** Targets a request would try, in order. */
  targets: { rung: string; connection: string; model: string; provider: string }[];
}

/** The parts of the gateway `explainModel` reads; a running app and the CLI both provide them. */
export interface ExplainSource {
  table: RoutingTable;
  ladderOptions: LadderOptions;
  live: PoolLiveState & { cooldownUntil?(connectionId: string, model: string): unknown };
  now(): number;
}

/** What `explainSourceOf` reads of a running app (an `AppContext` satisfies it). */
export interface ExplainHost {
  readonly table: RoutingTable;
  readonly dispatcher: { readonly ladderOptions: LadderOptions; readonly live: PoolLiveState };
  readonly deps: {
    readonly cooldowns: { cooldownUntil(connectionId: string, model?: string): unknown };
    readonly now: () => number;
  };
}

/** The explain inputs of a running gateway app: its routing table, ladder options and live state. */
export function explainSourceOf(app: ExplainHost): ExplainSource {
  return {
    table: app.table,
    ladderOptions: app.dispatcher.ladderOptions,
    live: {
      ...app.dispatcher.live,
      cooldownUntil: (id: string, model: string) => app.deps.cooldowns.cooldownUntil(id, model),
    },
    now: app.deps.now,
  };
}

/**
 * Explains where a request for `modelId` would go right now and why: the ladder's verdict per
 * candidate and connection against live quota and spend, the gateway's own exclusions, and the
 * resulting target order. Contains no credential. Throws a 404 `GatewayError` for an unknown id.
 */
export function explainModel(
  source: ExplainSource,
  modelId: string,
  client: ClientIdentity = { id: "explain", connections: null },
): ModelExplanation {
  const resolution = source.table.resolve(modelId);
  if (!resolution.ok) {
    throw new GatewayError({
      message: resolution.message,
      code: resolution.reason === "unknown_category" ? "unknown_category" : "model_not_found",
      details:
        resolution.reason === "unknown_category" ? { categories: source.table.categories } : {},
    });
  }
  const excluded: GatewayExclusion[] = [];
  const pool: LadderCandidate[] = [];
  for (const group of resolution.groups) {
    const allowed: string[] = [];
    for (const id of group.connectionIds) {
      const reason = exclusionOf(source, client, id, group);
      if (reason) excluded.push({ connectionId: id, model: group.model, reason });
      else allowed.push(id);
    }
    if (allowed.length > 0) {
      pool.push({
        provider: group.provider,
        model: group.model,
        connectionId: null,
        allowedConnectionIds: allowed,
      });
    }
  }
  for (const connection of source.table.connections.values()) {
    if (connection.disabledReason === null) continue;
    for (const model of connection.config.models) {
      if (resolution.kind === "concrete" && model !== modelId) continue;
      excluded.push({
        connectionId: connection.config.id,
        model,
        reason: connection.disabledReason,
      });
    }
  }
  const targets = buildTargets(
    source.table,
    resolution.groups,
    resolution.grouping,
    client,
    source.live,
    source.ladderOptions,
  ).map((target) => ({
    rung: target.rung,
    connection: target.connection.config.id,
    model: target.model,
    provider: target.provider,
  }));
  return {
    model: modelId,
    kind: resolution.kind,
    grouping: resolution.grouping,
    category: resolution.category,
    evaluatedAtMs: source.now(),
    ladder: explainPool(pool, source.ladderOptions, resolution.grouping),
    excluded,
    targets,
  };
}

function exclusionOf(
  source: ExplainSource,
  client: ClientIdentity,
  connectionId: string,
  group: CandidateGroup,
): string | null {
  if (client.connections !== null && !client.connections.has(connectionId)) {
    return "not usable by this client key";
  }
  if (source.live.isCoolingDown(connectionId, group.model)) {
    const until = source.live.cooldownUntil?.(connectionId, group.model);
    return `cooling down${until ? ` until ${formatInstant(until)}` : ""}`;
  }
  return null;
}

function formatInstant(value: unknown): string {
  if (typeof value === "number") return new Date(value).toISOString();
  return String(value);
}
