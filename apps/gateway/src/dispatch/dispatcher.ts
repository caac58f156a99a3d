import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import { type AttemptRecord, GatewayError } from "../errors";
import { parseJsonObject } from "../protocols/ir/guards";
import type { DispatchTarget } from "../routing/build-pool";
import type { PoolLiveState } from "../routing/exclusions";
import { connectionReasons, type ExplainSource } from "../routing/explain-model";
import { createPoolCache } from "../routing/pool-cache";
import { earliestPoolReturnMs } from "../routing/pool-reset";
import type { ModelResolution, RoutingTable } from "../routing/routing-table";
import { unknownModelError } from "../routing/unknown-model";
import { UpstreamError } from "../upstream";
import { Attempt } from "./attempt";
import { clientGone } from "./client-gone";
import { emptyPoolError } from "./empty-pool";
import { serveNonStream } from "./non-stream";
import { isClientFault, observeResponse } from "./observe-response";
import { admit, type ReservationHold } from "./reservation";
import { retryAfterSeconds } from "./retry-after";
import { streamResponse } from "./stream";
import { type ClientRequest, type Dispatcher, FELL_THROUGH, type TargetOutcome } from "./types";
import { UpstreamCalls } from "./upstream-call";
import { clientFaultReply } from "./upstream-rejection";

export type { ClientRequest, Dispatcher } from "./types";

/** What one client request collects across its attempts. */
interface RequestState {
  readonly attempts: AttemptRecord[];
  /** Upstream bodies by protocol and model, so a fall-through to the same shape reuses one. */
  readonly bodies: Map<string, string>;
  rateLimited: boolean;
  /** When the last 429 said to come back (retry or reset instant), if it said. */
  rateLimitRetryAt: string | null;
}

/** Creates the dispatcher over injected deps and the static routing table. */
export function createDispatcher(deps: GatewayDeps, table: RoutingTable): Dispatcher {
  const { quotaCache, cooldowns, ledger, upstream, now, metrics } = deps;
  const ladderOptions: LadderOptions = {
    ...table.ladderBase,
    resolveQuotaState: (provider, connectionId, model) =>
      connectionId === null ? undefined : quotaCache.get(provider, connectionId, model),
    resolveRungSpendUsd: (rung) => ledger.rungSpendUsd(rung),
    now,
  } as LadderOptions;
  const live: PoolLiveState = {
    quotaState: (provider, connectionId, model) => quotaCache.get(provider, connectionId, model),
    isCoolingDown: (connectionId, model) => cooldowns.isCoolingDown(connectionId, model),
    cooldownUntil: (connectionId, model) => cooldowns.cooldownUntil(connectionId, model),
  };
  const explainSource: ExplainSource = { table, ladderOptions, live, now };
  const pools = createPoolCache({
    table,
    live,
    ladderOptions,
    now,
    maxStateAgeMs: deps.config.subscriptionLadder.maxStateAgeMs,
  });
  const calls = new UpstreamCalls();

  /** No target left: the reasons are read from the same explain the ladder route shows. */
  function exhausted(
    resolution: Extract<ModelResolution, { ok: true }>,
    request: ClientRequest,
    attempts?: readonly AttemptRecord[],
  ): GatewayError {
    const nowMs = now();
    metrics.countRequest("none", "none", "exhausted", nowMs);
    return emptyPoolError({
      modelId: request.modelId,
      grouping: resolution.grouping,
      returnAtMs: earliestPoolReturnMs(table, resolution, live, ladderOptions),
      nowMs,
      reasons: () => connectionReasons(explainSource, resolution, request.modelId, request.client),
      attempts,
    });
  }

  /** One attempt after its reservation: send, observe, then serve or fall through. */
  async function tryTarget(
    attempt: Attempt,
    hold: ReservationHold,
    request: ClientRequest,
    state: RequestState,
  ): Promise<TargetOutcome> {
    const { target, connectionId } = attempt;
    const upstreamRequest = calls.request(target, request, state.bodies);
    const startedAt = performance.now();
    let response: Awaited<ReturnType<typeof upstream.send>>;
    try {
      response = await upstream.send(upstreamRequest);
    } catch (error) {
      if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
      const code = UpstreamError.isInstance(error) ? error.code : "network";
      attempt.fallThrough(code, { cool: true, log: "upstream unreachable, falling through" });
      return FELL_THROUGH;
    }
    metrics.observeUpstreamLatency(connectionId, performance.now() - startedAt);
    attempt.answered(response.status);

    if (response.status >= 300) {
      const text = await response.text().catch(() => "");
      const body = parseJsonObject(text) ?? undefined;
      const failure = observeResponse(deps, target, response.status, response.headers, body);
      if (isClientFault(response.status)) {
        const reply = clientFaultReply(
          attempt,
          request,
          response.status,
          body,
          state.attempts.length,
        );
        return { served: reply };
      }
      if (response.status === 429) {
        state.rateLimited = true;
        state.rateLimitRetryAt = failure?.retryAt ?? failure?.resetAt ?? null;
      }
      attempt.fallThrough(failure?.kind ?? "upstream_error", {
        log: "upstream refused, falling through",
      });
      return FELL_THROUGH;
    }

    observeResponse(deps, target, response.status, response.headers, undefined);
    cooldowns.succeed(connectionId, { model: target.model });
    if (!request.stream) {
      return serveNonStream(deps, attempt, hold, request, response, state.attempts.length);
    }
    const streamed = await streamStarted(target, hold, request, response, state);
    if (streamed.ok) {
      hold.handOff();
      return { served: streamed.reply };
    }
    if (streamed.clientGone) {
      hold.handOff(); // the stream settled what the upstream billed
      throw clientGone(null);
    }
    // Nothing reached the client yet: fall through to the next target.
    attempt.fallThrough(streamed.reason, { cool: true });
    return FELL_THROUGH;
  }

  function streamStarted(
    target: DispatchTarget,
    hold: ReservationHold,
    request: ClientRequest,
    response: Awaited<ReturnType<typeof upstream.send>>,
    state: RequestState,
  ) {
    return streamResponse({
      deps,
      request,
      target,
      response,
      attempts: state.attempts,
      reservation: hold.reservation,
      estimatedInputTokens: hold.estimatedInputTokens,
    });
  }

  /** Every target fell through. */
  function allFailed(
    resolution: Extract<ModelResolution, { ok: true }>,
    request: ClientRequest,
    state: RequestState,
  ): GatewayError {
    if (resolution.grouping === "subscription") {
      return exhausted(resolution, request, state.attempts);
    }
    metrics.countRequest("none", "none", "all_failed", now());
    if (state.rateLimited) {
      return new GatewayError({
        code: "all_targets_rate_limited",
        message: "every target is rate-limited",
        details: { attempts: state.attempts },
        retryAfterSec: retryAfterSeconds(state.rateLimitRetryAt, now()),
      });
    }
    return new GatewayError({
      code: "all_targets_failed",
      message: "every target failed",
      details: { attempts: state.attempts },
    });
  }

  async function dispatch(request: ClientRequest) {
    const resolution = table.resolve(request.modelId);
    if (!resolution.ok) throw unknownModelError(resolution, table);
    const targets = pools.targetsFor(resolution, request.client);
    if (targets.length === 0) throw exhausted(resolution, request);

    const state: RequestState = {
      attempts: [],
      bodies: new Map(),
      rateLimited: false,
      rateLimitRetryAt: null,
    };
    for (const target of targets) {
      const attempt = new Attempt(deps, target, request.requestId);
      state.attempts.push(attempt.record);
      if (cooldowns.isCoolingDown(attempt.connectionId, target.model)) {
        attempt.skip("cooling_down"); // cooled by an earlier attempt of this same request
        continue;
      }
      const admission = await admit(ledger, target, request);
      if (admission.hold === null) {
        attempt.fallThrough(admission.refused);
        continue;
      }
      // The one place a reservation is given back: whatever happened, unless it was handed off.
      try {
        const outcome = await tryTarget(attempt, admission.hold, request, state);
        if (outcome.served) return outcome.served;
      } finally {
        admission.hold.release();
      }
    }
    throw allFailed(resolution, request, state);
  }

  return { table, ladderOptions, live, dispatch };
}
