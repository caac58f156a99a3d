import {
  explainPool,
  type LadderCandidate,
  type LadderOptions,
} from "@planfirst/subscription-ladder";
import { buildTargets } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import { describeExclusion, exclusionOf, type PoolLiveState } from "./exclusions";
import { earliestPoolReturnMs } from "./pool-reset";
import type { ModelResolution, RoutingTable } from "./routing-table";
import { unknownModelError } from "./unknown-model";

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
  /**
   * ISO instant the earliest excluded connection could serve again (plan reset past the exit
   * cutoff or re-entry floor, cooldown end), or null: the instant behind an exhausted pool's
   * `Retry-After`, computed by the same function.
   */
  earliestReturnAt: string | null;
}

/** Why one connection could not serve a request, for error bodies. Never holds a credential. */
export interface ConnectionReason {
  connection: string;
  model: string;
  reason: string;
}

/** The parts of the gateway `explainModel` reads; a running app and the CLI both provide them. */
export interface ExplainSource {
  table: RoutingTable;
  ladderOptions: LadderOptions;
  live: PoolLiveState;
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
  if (!resolution.ok) throw unknownModelError(resolution, source.table);
  const { excluded, ladder } = explainResolution(source, resolution, modelId, client);
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
    ladder,
    excluded,
    targets,
    earliestReturnAt: isoOrNull(
      earliestPoolReturnMs(source.table, resolution, source.live, source.ladderOptions),
    ),
  };
}

/**
 * The gateway's exclusions and the ladder's verdicts for one resolved id, without building the
 * targets: what `explainModel` reports and what an exhausted pool lists as its reasons.
 */
export function explainResolution(
  source: ExplainSource,
  resolution: Extract<ModelResolution, { ok: true }>,
  modelId: string,
  client: ClientIdentity,
): { excluded: GatewayExclusion[]; ladder: ReturnType<typeof explainPool> } {
  const excluded: GatewayExclusion[] = [];
  const pool: LadderCandidate[] = [];
  for (const group of resolution.groups) {
    const allowed: string[] = [];
    for (const id of group.connectionIds) {
      const kind = exclusionOf(source.live, client, id, group.model);
      // A key limited to some connections is never told the others exist.
      if (kind === "client_scope") continue;
      if (kind === null) allowed.push(id);
      else {
        const reason = describeExclusion(kind, source.live, id, group.model);
        excluded.push({ connectionId: id, model: group.model, reason });
      }
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
    if (client.connections !== null && !client.connections.has(connection.config.id)) continue;
    for (const model of connection.config.models) {
      if (resolution.kind === "concrete" && model !== modelId) continue;
      excluded.push({
        connectionId: connection.config.id,
        model,
        reason: connection.disabledReason,
      });
    }
  }
  return { excluded, ladder: explainPool(pool, source.ladderOptions, resolution.grouping) };
}

/** Every connection of a resolved id that is out, and why: exclusions first, then the ladder's. */
export function connectionReasons(
  source: ExplainSource,
  resolution: Extract<ModelResolution, { ok: true }>,
  modelId: string,
  client: ClientIdentity,
): ConnectionReason[] {
  const { excluded, ladder } = explainResolution(source, resolution, modelId, client);
  const reasons: ConnectionReason[] = excluded.map((e) => ({
    connection: e.connectionId,
    model: e.model,
    reason: e.reason,
  }));
  for (const candidate of ladder.candidates) {
    for (const connection of candidate.connections) {
      if (connection.verdict === "in") continue;
      reasons.push({
        connection: connection.connectionId ?? candidate.provider,
        model: candidate.model,
        reason: connection.reason,
      });
    }
  }
  return reasons;
}

function isoOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}
