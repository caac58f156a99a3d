import { isPaidRung } from "@planfirst/subscription-ladder";
import type { SubscriptionLadderConfig } from "../config/subscription-ladder-schema";
import type { GatewayDeps } from "../deps";
import { GatewayError } from "../errors";
import type { GatewayReply } from "../http/reply";
import { clientWireOf, codecFor, type IrStreamError } from "../protocols";
import type { ClientIdentity } from "../routing/client-identity";
import type { ResolvedModel } from "../routing/pool-cache";
import type { PlanReturn } from "../routing/pool-reset";
import { clientGone } from "./client-gone";
import { HeldStreamSource } from "./held-stream";
import { RECEIPT_HEADERS, WAITED_MS_HEADER } from "./receipt";
import { streamHeaders } from "./stream";
import type { ClientRequest } from "./types";
import type { PlanLook, Waiter, WaitingRoom, WaitTicket, WaitTimers } from "./waiting-room";

/** What the wait for a plan reads: the rooms, the settings, and how the dispatcher sees a plan. */
export interface PlanWaitContext {
  readonly deps: Pick<GatewayDeps, "config" | "now" | "metrics" | "logger">;
  readonly room: WaitingRoom;
  /** The timers a held stream's keep-alives run on. */
  readonly timers: WaitTimers;
  /** The plan connection of the request's pool that comes back first, and when (`earliestPlanReturn`). */
  planReturn(resolution: ResolvedModel, client: ClientIdentity): PlanReturn | undefined;
  /**
   * True when a dispatch now would reach a plan for the request: its `auto/subscription` pool
   * is not empty or a plan can take it as a probe (no probe in flight), or its `auto/thrifty`
   * pool has a plan target again.
   */
  planBack(resolution: ResolvedModel, client: ClientIdentity): boolean;
  /** How a failure reads inside a stream whose headers have left (the one error table's words). */
  streamFailureOf(error: unknown): StreamFailureOf;
}

/** A failure as a held stream ends with it: its error frame, and the status it stands for. */
export interface StreamFailureOf {
  /** The HTTP status the failure would have been answered with (for the request log). */
  readonly status: number;
  readonly error: IrStreamError;
}

/** What a pass of the dispatch answers when it stopped to wait for a plan. */
export const HELD: unique symbol = Symbol("held for a plan");

/** One pass of the dispatch, given leave to hold (`wait`) or not. */
type DispatchPass = (wait: PlanWait | null) => Promise<GatewayReply | typeof HELD>;

/**
 * One pass's leave to hold a request for a plan (ladder.md §17). The pass asks `mayHold()` where
 * it would otherwise be refused (`auto/subscription`, WAIT2) or climb to its first paid target
 * (`auto/thrifty`), and returns {@link HELD} when it says yes. It calls `orderFixed()` once its
 * pool is built or its probe has answered, so the next request in line may go (WAIT3).
 */
export class PlanWait {
  /** The plan to wait for and when it is expected back, once `mayHold()` said yes. */
  planReturn: PlanReturn | null = null;
  private declined = false;

  constructor(
    private readonly context: PlanWaitContext,
    private readonly resolution: ResolvedModel,
    private readonly client: ClientIdentity,
    /** Epoch ms the request stops waiting. */
    readonly deadlineMs: number,
    private released: (() => void) | null,
  ) {}

  /**
   * True when a plan of the request's pool comes back before its deadline (the request is then
   * held); once false, false for the rest of the pass, so a climb that began goes on.
   */
  mayHold(): boolean {
    if (this.declined) return false;
    const back = this.context.planReturn(this.resolution, this.client);
    if (back === undefined || back.atMs > this.deadlineMs) {
      this.declined = true;
      return false;
    }
    this.planReturn = back;
    return true;
  }

  /** The pass's place in line no longer matters: the next waiter may look. */
  orderFixed(): void {
    const released = this.released;
    this.released = null;
    released?.();
  }
}

/**
 * How long `request` may wait for a plan, milliseconds (WAIT1): what it asked for
 * (`x-planfirst-max-wait`), else the default of its id (`maxWaitMs` for `auto/subscription`,
 * `maxWaitBeforePaidMs` for `auto/thrifty`, 0 for a concrete model), capped by `maxWaitCapMs`.
 * A call the upstream bills nothing for (`count_tokens`) never waits.
 */
export function waitWishMs(
  ladder: SubscriptionLadderConfig,
  resolution: ResolvedModel,
  request: Pick<ClientRequest, "maxWaitMs" | "unbilled">,
): number {
  if (request.unbilled) return 0;
  const wish =
    request.maxWaitMs ??
    (resolution.kind !== "auto"
      ? 0
      : resolution.grouping === "subscription"
        ? ladder.maxWaitMs
        : ladder.maxWaitBeforePaidMs);
  return Math.min(wish, ladder.maxWaitCapMs);
}

/**
 * Dispatches a request that may wait `wishMs` for a plan (ladder.md §17): each pass routes as
 * usual and may stop where it would be refused or pay (WAIT2); the request then waits in the
 * plan's line (WAIT3) with nothing sent upstream, and a release starts the next pass from the top
 * (WAIT4). A wait that ends without the plan (deadline, the plan's return past it, a full line,
 * the gateway closing) runs one last pass with no leave to hold: the 429 or the climb it would
 * have had (WAIT5). A streaming request held past `heldStreamHeadersAfterMs` is answered at once
 * with a held stream (WAIT6). Every answer that waited carries `x-planfirst-waited-ms` (WAIT7).
 */
export function waitForPlan(
  context: PlanWaitContext,
  resolution: ResolvedModel,
  request: ClientRequest,
  wishMs: number,
  pass: DispatchPass,
): Promise<GatewayReply> {
  if (!request.stream) return holdUntilAnswered(context, resolution, request, wishMs, pass);
  return new Promise((resolve, reject) => {
    const startedMs = context.deps.now();
    let held: HeldStreamSource | null = null;
    const commit = () => {
      const { config, now } = context.deps;
      held = new HeldStreamSource({
        keepAlive: clientWireOf(request.protocol).keepAlive,
        errorFrames: codecFor(request.protocol).relay.errorFrames,
        keepAliveMs: config.subscriptionLadder.heldStreamKeepAliveMs,
        timers: context.timers,
      });
      context.deps.logger.info(
        { requestId: request.requestId, waitedMs: now() - startedMs },
        "held stream: headers sent, keep-alives until the plan answers",
      );
      resolve({ kind: "stream", status: 200, headers: streamHeaders(), source: held });
    };
    holdUntilAnswered(context, resolution, request, wishMs, pass, commit).then(
      (reply) => {
        if (!held) return resolve(reply);
        logHeldReceipt(context, request, reply);
        held.answer(reply);
        // A stream's record is ended by the stream; a refusal in its place ends here.
        if (reply.kind === "body") request.trace?.end(reply.status, "upstream_rejected_request");
      },
      (error: unknown) => {
        if (!held) return reject(error);
        const failure = context.streamFailureOf(error);
        held.fail(failure.error);
        const gone = failure.error.code === "client_closed_request";
        request.trace?.end(failure.status, gone ? "client_closed" : failure.error.code, !gone);
      },
    );
  });
}

/** The wait loop: passes, holds, releases, until an answer or a final error. */
async function holdUntilAnswered(
  context: PlanWaitContext,
  resolution: ResolvedModel,
  request: ClientRequest,
  wishMs: number,
  pass: DispatchPass,
  commit?: () => void,
): Promise<GatewayReply> {
  const { deps, room } = context;
  const startedMs = deps.now();
  const deadlineMs = startedMs + wishMs;
  let ticket: WaitTicket | undefined;
  let waitedFor: string | null = null;
  let released: (() => void) | null = null;
  let mayWait = true;
  try {
    while (true) {
      const wait = mayWait
        ? new PlanWait(context, resolution, request.client, deadlineMs, released)
        : null;
      released = null;
      let outcome: GatewayReply | typeof HELD;
      try {
        outcome = await pass(wait);
      } finally {
        wait?.orderFixed();
      }
      if (outcome !== HELD) {
        if (waitedFor !== null) {
          const waitedMs = deps.now() - startedMs;
          outcome.headers[WAITED_MS_HEADER] = String(waitedMs);
          if (request.trace) request.trace.waitedMs = waitedMs;
          // Served by a paid rung after all: the plan did not come back in time (WAIT5).
          const rung = outcome.headers[RECEIPT_HEADERS.rung];
          const climbed = rung !== undefined && isPaidRung(rung);
          deps.metrics.observeWait(waitedFor, climbed ? "climbed" : "served", waitedMs);
        }
        return outcome;
      }
      const planReturn = wait?.planReturn;
      if (!planReturn) throw internalError("a pass held a request without a plan to wait for");
      const { connectionId } = planReturn;
      ticket ??= room.ticket(waiterOf(context, resolution, request, startedMs, deadlineMs, commit));
      const ending = ticket.hold(connectionId, planReturn.atMs);
      if (waitedFor === null && ticket.admitted) {
        waitedFor = connectionId;
        deps.logger.debug(
          { requestId: request.requestId, connection: connectionId, deadlineMs },
          "held: waiting for the plan to come back",
        );
      }
      const end = await ending;
      if (end.kind === "full") {
        // Refused a place in line: answered at once, as if it had not asked to wait (WAIT3).
        deps.metrics.observeWait(connectionId, "room_full", null);
        return answeredWithoutHold(await pass(null));
      }
      if (end.kind === "released") {
        deps.logger.debug(
          { requestId: request.requestId, connection: connectionId },
          "released: the plan is back",
        );
        released = end.done;
        continue;
      }
      if (end.kind === "gone") throw clientGone(null);
      mayWait = false;
    }
  } catch (error) {
    if (waitedFor === null) throw error;
    const waitedMs = deps.now() - startedMs;
    const gone = GatewayError.isInstance(error) && error.code === "client_closed_request";
    deps.metrics.observeWait(waitedFor, gone ? "disconnected" : "refused", waitedMs);
    if (request.trace) request.trace.waitedMs = waitedMs;
    throw withWaitedMs(error, waitedMs);
  }
}

function waiterOf(
  context: PlanWaitContext,
  resolution: ResolvedModel,
  request: ClientRequest,
  startedMs: number,
  deadlineMs: number,
  commit: (() => void) | undefined,
): Waiter {
  const look = (): PlanLook =>
    context.planBack(resolution, request.client)
      ? BACK
      : { back: false, returnAtMs: context.planReturn(resolution, request.client)?.atMs };
  const waiter: Waiter = {
    deadlineMs,
    signal: request.signal,
    lookKey: `${request.modelId}\u0000${request.client.id}`,
    look,
  };
  if (!commit) return waiter;
  const headersAfterMs = context.deps.config.subscriptionLadder.heldStreamHeadersAfterMs;
  return { ...waiter, alarmAtMs: startedMs + headersAfterMs, onAlarm: commit };
}

const BACK: PlanLook = { back: true };

/** A pass with no leave to hold never answers {@link HELD}. */
export function answeredWithoutHold(outcome: GatewayReply | typeof HELD): GatewayReply {
  if (outcome === HELD) throw internalError("a pass without leave to hold held its request");
  return outcome;
}

function internalError(message: string): GatewayError {
  return new GatewayError({ code: "internal_error", message });
}

/** The same error answer, saying how long the request waited (`x-planfirst-waited-ms`). */
function withWaitedMs(error: unknown, waitedMs: number): unknown {
  if (!GatewayError.isInstance(error)) return error;
  return new GatewayError({
    code: error.code,
    message: error.message,
    cause: error.cause,
    details: error.details,
    retryAfterSec: error.retryAfterSec,
    waitedMs,
  });
}

/**
 * The receipt of a held stream cannot ride on its headers, which left before it was routed: it
 * is logged instead, with the request id, so an operator can still see where it went.
 */
function logHeldReceipt(
  context: PlanWaitContext,
  request: ClientRequest,
  reply: GatewayReply,
): void {
  const headers = reply.headers;
  context.deps.logger.info(
    {
      requestId: request.requestId,
      rung: headers[RECEIPT_HEADERS.rung],
      connection: headers[RECEIPT_HEADERS.connection],
      model: headers[RECEIPT_HEADERS.model],
      attempts: headers[RECEIPT_HEADERS.attempts],
      costUsd: headers[RECEIPT_HEADERS.costUsd],
      waitedMs: headers[WAITED_MS_HEADER],
      status: reply.status,
    },
    "held stream answered",
  );
}
