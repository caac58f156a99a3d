import type { SessionPin } from "@planfirst/quota-cache";
import {
  explainPool,
  type LadderCandidate,
  type LadderOptions,
} from "@planfirst/subscription-ladder";
import { buildTargets, type DispatchTarget } from "./build-pool";
import type { ClientIdentity } from "./client-identity";
import { describeExclusion, exclusionOf, type PoolLiveState } from "./exclusions";
import { earliestPoolReturnMs } from "./pool-reset";
import type { ModelResolution, RoutingTable } from "./routing-table";
import {
  type AffinityDecision,
  type AffinityMoveReason,
  type AffinityOutcome,
  affinityOrder,
  pinnedTargetOut,
  placeSession,
} from "./session-affinity";
import { pinKeyOf } from "./session-key";
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
  /**
   * Where the session asked about would go and why (ladder.md §16); absent when none was named.
   * `targets` is then in that session's order.
   */
  session?: SessionExplanation;
}

/** The session part of an explanation: its pin, how affinity places it, and why, in words. */
export interface SessionExplanation {
  hash: string;
  /** The target that served the session's last request for this model id; null when none is live. */
  pinned: { connection: string; model: string; rung: string | null; lastServedAt: string } | null;
  affinity: AffinityOutcome;
  /** Why the session would move off its pin; null unless `affinity` is `moved`. */
  reason: AffinityMoveReason | null;
  why: string;
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
  /** Session pins, for an explanation that names a session; absent = no pin is known. */
  sessions?: { pinOf(key: string): SessionPin | undefined };
}

/** What `explainSourceOf` reads of a running app (an `AppContext` satisfies it). */
interface ExplainHost {
  readonly table: RoutingTable;
  readonly dispatcher: { readonly ladderOptions: LadderOptions; readonly live: PoolLiveState };
  readonly deps: {
    readonly cooldowns: { cooldownUntil(connectionId: string, model?: string): unknown };
    readonly now: () => number;
    readonly sessions?: { pinOf(key: string): SessionPin | undefined };
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
    ...(app.deps.sessions ? { sessions: app.deps.sessions } : {}),
  };
}

/**
 * Explains where a request for `modelId` would go right now and why: the ladder's verdict per
 * candidate and connection against live quota and spend, the gateway's own exclusions, and the
 * resulting target order. With `sessionHash` (a session as `x-planfirst-session` names it), the
 * order is that session's and `session` says where it goes and why. Contains no credential.
 * Throws a 404 `GatewayError` for an unknown id.
 */
export function explainModel(
  source: ExplainSource,
  modelId: string,
  client: ClientIdentity = { id: "explain", connections: null },
  sessionHash?: string,
): ModelExplanation {
  const resolution = source.table.resolve(modelId);
  if (!resolution.ok) throw unknownModelError(resolution, source.table);
  const { excluded, ladder } = explainResolution(source, resolution, modelId, client);
  const built = buildTargets(
    source.table,
    resolution.groups,
    resolution.grouping,
    client,
    source.live,
    source.ladderOptions,
  );
  const session =
    sessionHash === undefined ? undefined : explainSession(source, built, modelId, sessionHash);
  const targets = (session ? affinityOrder(built, session.decision) : built).map((target) => ({
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
    ...(session ? { session: session.explanation } : {}),
  };
}

/** The affinity step for a named session over the ladder's targets, and its words. */
function explainSession(
  source: ExplainSource,
  targets: readonly DispatchTarget[],
  modelId: string,
  hash: string,
): { decision: AffinityDecision; explanation: SessionExplanation } {
  const pin = source.sessions?.pinOf(pinKeyOf(hash, modelId));
  const decision = placeSession(targets, pin, (pinned) =>
    pinnedTargetOut(source.table, source.live, source.ladderOptions, pinned),
  );
  const pinned = pin
    ? {
        connection: pin.connectionId,
        model: pin.model,
        rung: source.table.rungOf(pin.connectionId, pin.model) ?? null,
        lastServedAt: new Date(pin.lastSeenMs).toISOString(),
      }
    : null;
  return {
    decision,
    explanation: {
      hash,
      pinned,
      affinity: decision.outcome,
      reason: decision.reason,
      why: sessionWords(decision, pinned, targets[0]),
    },
  };
}

const MOVE_WORDS: Readonly<Record<AffinityMoveReason, string>> = {
  exhausted: "its quota there is exhausted",
  cooling: "it is cooling down",
  budget: "its rung's budget is spent",
  ladder: "the ladder serves it from elsewhere now (another rung, or the target is out)",
};

function sessionWords(
  decision: AffinityDecision,
  pinned: SessionExplanation["pinned"],
  first: DispatchTarget | undefined,
): string {
  if (pinned === null) return "no live pin: a new session follows the ladder's order";
  const at = `${pinned.connection} (${pinned.model})`;
  if (decision.outcome === "hit") {
    return decision.first > 0
      ? `pinned to ${at}, which the ladder keeps on the serving rung (${first?.rung}): it goes first`
      : `pinned to ${at}, already first in the ladder's order`;
  }
  const reason = decision.reason ?? "ladder";
  return `pinned to ${at}, but ${MOVE_WORDS[reason]}: the ladder's order, and the session moves where it is served`;
}

/**
 * The gateway's exclusions and the ladder's verdicts for one resolved id, without building the
 * targets: what `explainModel` reports and what an exhausted pool lists as its reasons.
 */
function explainResolution(
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
