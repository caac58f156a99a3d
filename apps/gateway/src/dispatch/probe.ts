import { isStateStaleForReset } from "@planfirst/quota-cache";
import { isProbeable, type LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import type { AttemptRecord } from "../errors";
import type { GatewayReply } from "../http/reply";
import type { PoolLiveState } from "../routing/exclusions";
import { probeTargets } from "../routing/probe-targets";
import type { ModelResolution, RoutingTable } from "../routing/routing-table";
import { Attempt } from "./attempt";
import { isClientGone } from "./client-gone";
import { FREE_ADMISSION } from "./reservation";
import { newRequestState, type TargetContext, tryTarget } from "./try-target";
import type { ClientRequest } from "./types";

/** What the probe path reads: the dispatcher's own parts. */
export interface ProbeContext {
  readonly deps: GatewayDeps;
  readonly table: RoutingTable;
  readonly live: PoolLiveState;
  readonly ladderOptions: LadderOptions;
  readonly targets: TargetContext;
  /** Told each connection whose probe has answered, once its lease is given back. */
  readonly probed?: (connectionId: string) => void;
}

/** How a probe ended: the reply to serve, else the attempts made (for the 429's body). */
interface ProbeOutcome {
  readonly served: GatewayReply | null;
  readonly attempts: readonly AttemptRecord[];
}

/**
 * ladder.md §15, for an `auto/subscription` request whose strict pool is empty: a plan connection
 * with no fresh reading whose effective overage is `hard-stop` (P1, P5: `probeTargets`) is sent
 * this request as the probe, bound to it, under its probe lease (single-flight, across replicas on
 * Redis). A 2xx that left no fresh reading records `served` (P3); a quota failure is recorded by
 * the same observation as any answer (P4), so the caller's 429 gives the new reading's reset.
 * While another probe of a connection is in flight, this request does not wait: it is refused
 * with `Retry-After: 1` (P2, S2b). Waiting would hold the client for up to the connection's
 * timeout for an answer that is often a 429 anyway; a 1 s retry costs the client nothing and
 * nothing can bill. The lease is released in a `finally`, whatever happened. A connection at
 * its `maxConcurrent` is passed over (`local_capacity`), never probed past its limit.
 */
export async function probePlans(
  context: ProbeContext,
  resolution: Extract<ModelResolution, { ok: true }>,
  request: ClientRequest,
): Promise<ProbeOutcome> {
  const { deps, table, live, ladderOptions } = context;
  const state = newRequestState(request);
  for (const target of probeTargets(
    table,
    resolution.groups,
    request.client,
    live,
    ladderOptions,
  )) {
    const connectionId = target.connection.config.id;
    // A full connection (maxConcurrent) is not probed now: busy is not a verdict on its plan.
    const slot = context.targets.slots.take(connectionId);
    if (slot === null) {
      const passed = new Attempt(deps, target, request.requestId);
      state.attempts.push(passed.record);
      passed.passOver();
      continue;
    }
    try {
      const lease = await deps.quotaCache.tryAcquireProbe(
        connectionId,
        target.connection.config.timeoutMs,
      );
      if (lease === null) continue; // another probe is out: S2b's Retry-After: 1
      const attempt = new Attempt(deps, target, request.requestId);
      state.attempts.push(attempt.record);
      deps.logger.debug(
        { requestId: request.requestId, connection: connectionId, model: target.model },
        "probing a hard-stop plan with no fresh reading",
      );
      try {
        const hold = FREE_ADMISSION.hold;
        if (hold === null) break;
        const outcome = await tryTarget(context.targets, attempt, hold, slot, request, state);
        if (outcome.served) {
          const ok = outcome.served.kind !== "body" || outcome.served.status < 300;
          const candidate = { provider: target.provider, model: target.model, connectionId };
          // P3: the answer carried no reading (z.ai, Kimi): headroom verified by being served.
          if (ok && isProbeable(candidate, connectionId, ladderOptions)) {
            deps.quotaCache.recordServed(connectionId, target.model);
          }
          return { served: outcome.served, attempts: state.attempts };
        }
      } catch (error) {
        if (isClientGone(error)) attempt.clientClosed();
        throw error;
      } finally {
        await lease.release();
        context.probed?.(connectionId);
      }
    } finally {
      slot.release(); // unless a committed stream took it over
    }
  }
  return { served: null, attempts: state.attempts };
}

/**
 * S2a on request: every plan connection of the resolution whose reading is missing or past its
 * reset gets a refresh asked for (single-flight; the scheduler skips cooldowns and its minimum
 * interval). Called only when a strict pool came up empty, never on the serving path.
 */
export function refreshStalePlans(
  deps: Pick<GatewayDeps, "quotaCache" | "planRefresh" | "now">,
  table: RoutingTable,
  resolution: Extract<ModelResolution, { ok: true }>,
): void {
  const planRefresh = deps.planRefresh;
  if (!planRefresh) return;
  const nowMs = deps.now();
  for (const group of resolution.groups) {
    if (group.rung !== "subscription") continue;
    for (const id of group.connectionIds) {
      if (!planRefresh.hasUsageEndpoint(id) || table.connections.get(id)?.disabledReason) continue;
      const reading = deps.quotaCache.get(group.provider, id, group.model);
      if (reading === undefined || isStateStaleForReset(reading, nowMs)) planRefresh.request(id);
    }
  }
}
