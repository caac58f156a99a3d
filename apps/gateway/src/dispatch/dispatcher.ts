import type { LadderOptions } from "@planfirst/subscription-ladder";
import { isPaidRung } from "@planfirst/subscription-ladder";
import type { GatewayDeps } from "../deps";
import { type AttemptRecord, GatewayError } from "../errors";
import type { GatewayReply } from "../http/reply";
import { cooldownReasonOf, type PoolLiveState } from "../routing/exclusions";
import { connectionReasons, type ExplainSource } from "../routing/explain-model";
import { createPoolCache } from "../routing/pool-cache";
import { earliestPoolReturnMs } from "../routing/pool-reset";
import type { ModelResolution, RoutingTable } from "../routing/routing-table";
import {
  type PinnedTarget,
  pinnedTargetOut,
  targetInAffinityOrder,
} from "../routing/session-affinity";
import { unknownModelError } from "../routing/unknown-model";
import { Attempt } from "./attempt";
import { isClientGone } from "./client-gone";
import { clientRefusedError } from "./client-refused";
import {
  type ConnectionSlot,
  ConnectionSlots,
  LOCAL_CAPACITY,
  localCapacityError,
} from "./connection-slots";
import { emptyPoolError } from "./empty-pool";
import {
  admitOrSkip,
  anyBudgetSpent,
  budgetExhaustedError,
  keyBudgetBarred,
  keyBudgetExhaustedError,
  onlyOutcome,
  STORE_DOWN,
  spendStoreUnavailable,
} from "./paid-refusals";
import { planSignals } from "./plan-signals";
import { createPlanWatch } from "./plan-watch";
import { type ProbeContext, probePlans, refreshStalePlans } from "./probe";
import { type Admission, FREE_ADMISSION } from "./reservation";
import { retryAfterSeconds } from "./retry-after";
import { SessionPlacer } from "./session-placement";
import {
  bodyToPrice,
  newRequestState,
  type RequestState,
  type TargetContext,
  tryTarget,
} from "./try-target";
import type { ClientRequest, Dispatcher } from "./types";
import { UpstreamCalls } from "./upstream-call";
import {
  answeredWithoutHold,
  HELD,
  type PlanWait,
  type PlanWaitContext,
  type StreamFailureOf,
  waitForPlan,
  waitWishMs,
} from "./wait-for-plan";
import { createWaitingRoom, NODE_TIMERS, type WaitTimers } from "./waiting-room";

export type { Dispatcher } from "./types";

const FREE: Admission = FREE_ADMISSION;

/** Options of {@link createDispatcher}. */
interface DispatcherOptions {
  /**
   * How a failure reads inside a stream whose headers have already left (a streaming request
   * held for a plan): the error table's status, type, code and message. Default: 500
   * `api_error` with the error's own code and message.
   */
  streamFailureOf?: (error: unknown) => StreamFailureOf;
  /** Timers of the waiting rooms and of held streams' keep-alives. Default Node's, unref'd. */
  timers?: WaitTimers;
  /**
   * The connections' `maxConcurrent` limits, shared by every configuration generation of one
   * gateway; default a set of this dispatcher's own.
   */
  slots?: ConnectionSlots;
}

/** Creates the dispatcher over injected deps and the static routing table. */
export function createDispatcher(
  deps: GatewayDeps,
  table: RoutingTable,
  options: DispatcherOptions = {},
): Dispatcher {
  const { quotaCache, cooldowns, ledger, now, metrics } = deps;
  const ladderOptions: LadderOptions = {
    ...table.ladderBase,
    resolveQuotaState: (provider, connectionId, model) =>
      connectionId === null ? undefined : quotaCache.get(provider, connectionId, model),
    resolveRungSpendUsd: (rung) => ledger.rungSpendUsd(rung),
    // E3: the account's own evidence refines the catalog for SUB2 and P5.
    resolveOverageEvidence: (connectionId) => quotaCache.overageEvidence(connectionId),
    now,
  } as LadderOptions;
  const live: PoolLiveState = {
    quotaState: (provider, connectionId, model) => quotaCache.get(provider, connectionId, model),
    isCoolingDown: (connectionId, model) => cooldowns.isCoolingDown(connectionId, model),
    cooldownUntil: (connectionId, model) => cooldowns.cooldownUntil(connectionId, model),
    cooldownReason: (connectionId, model) =>
      cooldownReasonOf(cooldowns.activeCooldowns(connectionId), model),
    ...planSignals(deps, ladderOptions, deps.config.subscriptionLadder.maxStateAgeMs),
  };
  const explainSource: ExplainSource = { table, ladderOptions, live, now };
  const pools = createPoolCache({
    table,
    live,
    ladderOptions,
    now,
    maxStateAgeMs: deps.config.subscriptionLadder.maxStateAgeMs,
  });
  const slots =
    options.slots ??
    new ConnectionSlots(deps.config.connections, (connection, outcome) =>
      metrics.countLocalCapacity(connection, outcome),
    );
  const targetContext: TargetContext = { deps, calls: new UpstreamCalls(deps), slots };
  const pinnedOut = (pin: PinnedTarget) => pinnedTargetOut(table, live, ladderOptions, pin);
  const placement = new SessionPlacer(deps.sessions, pinnedOut);
  const timers = options.timers ?? NODE_TIMERS;
  const waiting = createWaitingRoom({
    now,
    timers,
    maxWaiting: deps.config.subscriptionLadder.maxWaiting,
    onAdmit: (connectionId) => metrics.countWaitStarted(connectionId),
  });
  const probeContext: ProbeContext = {
    deps,
    table,
    live,
    ladderOptions,
    targets: targetContext,
    // A probe's answer is what a line waiting for that plan waits for (WAIT4).
    probed: (connectionId) => waiting.wake(connectionId),
  };
  const waitContext: PlanWaitContext = {
    deps,
    room: waiting,
    timers,
    ...createPlanWatch({ table, pools, live, ladderOptions, quotaCache }),
    streamFailureOf: options.streamFailureOf ?? defaultStreamFailure,
  };

  /** No target left: the reasons are read from the same explain the ladder route shows. */
  function exhausted(
    resolution: Extract<ModelResolution, { ok: true }>,
    request: ClientRequest,
    attempts?: readonly AttemptRecord[],
  ): GatewayError {
    if (resolution.grouping === "subscription") refreshStalePlans(deps, table, resolution);
    const nowMs = now();
    metrics.countRequest("none", "none", "exhausted", nowMs);
    // auto/thrifty with nothing left because the paid budgets are spent: say so, and when.
    if (resolution.kind === "auto" && resolution.grouping === "thrifty" && anyBudgetSpent(ledger)) {
      return budgetExhaustedError(deps.config.subscriptionLadder, nowMs, attempts);
    }
    return emptyPoolError({
      modelId: request.modelId,
      grouping: resolution.grouping,
      returnAtMs: earliestPoolReturnMs(table, resolution, live, ladderOptions),
      nowMs,
      reasons: () => connectionReasons(explainSource, resolution, request.modelId, request.client),
      attempts,
    });
  }

  /** Every target fell through. */
  function allFailed(
    resolution: Extract<ModelResolution, { ok: true }>,
    request: ClientRequest,
    state: RequestState,
  ): GatewayError {
    // No target's protocol could carry the request: the 400 names the field.
    if (state.refusal && state.attempts.every(isRefusal)) return state.refusal;
    if (onlyOutcome(state.attempts, "client_refused")) return clientRefusedError(state.attempts);
    if (resolution.grouping === "subscription") {
      return exhausted(resolution, request, state.attempts);
    }
    if (onlyOutcome(state.attempts, STORE_DOWN)) return spendStoreUnavailable();
    const keyBudget = request.client.budget;
    if (keyBudget && keyBudgetBarred(state.attempts)) {
      const { budgetTimeZone } = deps.config.subscriptionLadder;
      metrics.countRequest("none", "none", "key_budget_exhausted", now());
      return keyBudgetExhaustedError(
        request.client.id,
        keyBudget,
        budgetTimeZone,
        now(),
        state.attempts,
      );
    }
    if (onlyOutcome(state.attempts, "budget_refused")) {
      return budgetExhaustedError(deps.config.subscriptionLadder, now(), state.attempts);
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

  async function dispatch(request: ClientRequest): Promise<GatewayReply> {
    const resolution = table.resolve(request.modelId);
    if (!resolution.ok) throw unknownModelError(resolution, table);
    const wishMs = waitWishMs(deps.config.subscriptionLadder, resolution, request);
    if (wishMs === 0) return answeredWithoutHold(await route(resolution, request, null));
    return waitForPlan(waitContext, resolution, request, wishMs, (wait) =>
      route(resolution, request, wait),
    );
  }

  /**
   * One pass over the request's pool. With leave to hold (`wait`, ladder.md §17), it answers
   * {@link HELD} instead of the strict 429 when a plan comes back within the wait (WAIT2), and
   * on `auto/thrifty` before its first paid target (nothing is reserved, nothing sent).
   */
  async function route(
    resolution: Extract<ModelResolution, { ok: true }>,
    request: ClientRequest,
    wait: PlanWait | null,
  ): Promise<GatewayReply | typeof HELD> {
    const targets = pools.targetsFor(resolution, request.client);
    // ladder.md §16: the session's pin goes first when the ladder kept it on the serving rung.
    const pin = placement.pinOf(request.session, request.modelId);
    const decision = placement.decide(targets, pin);
    if (targets.length === 0) {
      if (resolution.grouping !== "subscription") throw exhausted(resolution, request);
      // ladder.md §15: no plan has a fresh reading; a hard-stop plan may take this as a probe.
      const probe = await probePlans(probeContext, resolution, request);
      wait?.orderFixed();
      if (probe.served) {
        return placement.answered(request.session, pin, decision, probe.served, probe.attempts);
      }
      // Every plan it could probe is busy: the gateway's own limit, not the plans' quota.
      if (onlyOutcome(probe.attempts, LOCAL_CAPACITY)) {
        const busy = probe.attempts.findLast((tried) => tried.outcome === LOCAL_CAPACITY)!;
        throw localCapacityErrorOf(busy.connection, 0, probe.attempts);
      }
      if (wait?.mayHold()) return held(resolution);
      throw exhausted(resolution, request, probe.attempts);
    }
    wait?.orderFixed();

    const state = newRequestState(request);
    // The last target passed over because its connection was full (`maxConcurrent`). The
    // session's pinned target, when it goes first out of its turn, is tried once, before the rest.
    let passedOver: Attempt | null = null;
    let step = 0;
    while (true) {
      let attempt: Attempt;
      let slot: ConnectionSlot | null;
      if (step < targets.length) {
        const target = targetInAffinityOrder(targets, decision, step++)!;
        attempt = new Attempt(deps, target, request.requestId);
        state.attempts.push(attempt.record);
        if (cooldowns.isCoolingDown(attempt.connectionId, target.model)) {
          attempt.skip("cooling_down"); // cooled by an earlier attempt of this same request
          continue;
        }
        // Before paying, a plan that comes back within the wait is waited for (WAIT2).
        if (wait !== null && isPaidRung(target.rung) && wait.mayHold()) return held(resolution);
        // A connection without maxConcurrent: one map lookup, the shared no-op slot.
        slot = slots.take(attempt.connectionId);
        if (slot === null) {
          // Busy, not failing: a later target may serve this request; nothing is cooled.
          attempt.passOver();
          passedOver = attempt;
          continue;
        }
      } else {
        // No later target served it: the request waits in line for the last full connection
        // it passed over, rather than fail while that connection is merely busy. On
        // auto/subscription every target is a verified hard-stop plan, so when every plan is
        // full the request waits for a plan (or gets the 503): nothing paid was ever in its
        // list to fall to. On auto/thrifty the paid rungs after a full plan were tried first,
        // within their budgets, as a plan failing over would have been.
        if (passedOver === null) break;
        attempt = passedOver;
        passedOver = null;
        slot = await slots.wait(attempt.connectionId, request.signal);
        if (slot === null) {
          const { connectionId } = attempt;
          throw localCapacityErrorOf(connectionId, undefined, state.attempts);
        }
        attempt.resume();
        if (cooldowns.isCoolingDown(attempt.connectionId, attempt.target.model)) {
          slot.release(); // cooled by another request while this one waited
          attempt.skip("cooling_down");
          break;
        }
      }
      // The one place a slot is given back: whatever happened, unless a stream took it over.
      try {
        const { target } = attempt;
        // Free rungs reserve nothing: no ledger call, no await on the plan-first hot path.
        const admission =
          isPaidRung(target.rung) && !request.unbilled
            ? await admitOrSkip(ledger, target, request, () =>
                bodyToPrice(targetContext, target, request, state),
              )
            : FREE;
        if (admission === STORE_DOWN) {
          attempt.fallThrough(STORE_DOWN); // refused, never admitted uncounted
          continue;
        }
        if (admission.hold === null) {
          attempt.fallThrough(admission.refused);
          continue;
        }
        // The one place a reservation is given back: whatever happened, unless it was handed off.
        try {
          const outcome = await tryTarget(
            targetContext,
            attempt,
            admission.hold,
            slot,
            request,
            state,
          );
          if (outcome.served) {
            return placement.answered(
              request.session,
              pin,
              decision,
              outcome.served,
              state.attempts,
            );
          }
        } finally {
          admission.hold.release();
        }
      } catch (error) {
        if (isClientGone(error)) attempt.clientClosed();
        throw error;
      } finally {
        slot.release();
      }
    }
    // Every plan target failed (the plan ran out under this very request): wait for it (WAIT2).
    if (resolution.grouping === "subscription" && wait?.mayHold()) return held(resolution);
    throw allFailed(resolution, request, state);
  }

  /** Holding is waiting for a reset: a reading stale for its reset is retaken now (S2a). */
  function held(resolution: Extract<ModelResolution, { ok: true }>): typeof HELD {
    refreshStalePlans(deps, table, resolution);
    return HELD;
  }

  /** `503 local_capacity` for `connectionId`, full after `waitedMs` (default its whole wait). */
  function localCapacityErrorOf(
    connectionId: string,
    waitedMs: number | undefined,
    attempts: readonly AttemptRecord[],
  ): GatewayError {
    metrics.countRequest("none", "none", LOCAL_CAPACITY, now());
    const settings = slots.limitOf(connectionId)?.settings ?? {
      id: connectionId,
      maxQueueWaitMs: 0,
    };
    return localCapacityError(settings, waitedMs ?? settings.maxQueueWaitMs, attempts);
  }

  return { table, ladderOptions, live, slots, waiting, dispatch };
}

function defaultStreamFailure(error: unknown): StreamFailureOf {
  const known = GatewayError.isInstance(error);
  return {
    status: 500,
    error: {
      type: "api_error",
      code: known ? error.code : "internal_error",
      message: known ? error.message : "internal error",
    },
  };
}

/** An attempt skipped because its protocol could not carry the request. */
function isRefusal(attempt: AttemptRecord): boolean {
  return attempt.outcome === "unsupported_field" || attempt.outcome === "invalid_field";
}
