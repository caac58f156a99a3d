import type { UpstreamFailure } from "@planfirst/quota-cache";
import { ConnectorError } from "../connectors/connector-error";
import type { GatewayDeps } from "../deps";
import type { AttemptRecord } from "../errors";
import { ProtocolError } from "../protocols";
import { parseJsonObject } from "../protocols/ir/guards";
import type { DispatchTarget } from "../routing/build-pool";
import { UpstreamError, type UpstreamRequest, type UpstreamResponse } from "../upstream";
import type { SecretRedactor } from "../upstream/secret-redactor";
import type { Attempt } from "./attempt";
import { clientGone } from "./client-gone";
import { serveCollected } from "./collected";
import type { ConnectionSlot, ConnectionSlots } from "./connection-slots";
import { serveNonStream } from "./non-stream";
import { isClientFaultAnswer } from "./observe-response";
import { redactorFor } from "./redaction";
import type { ReservationHold } from "./reservation";
import { streamResponse } from "./stream";
import { type ClientRequest, FELL_THROUGH, type TargetOutcome } from "./types";
import type { UpstreamBody } from "./upstream-body";
import type { UpstreamCalls } from "./upstream-call";
import { clientFaultReply } from "./upstream-rejection";

/** What every attempt of a dispatcher shares. */
export interface TargetContext {
  readonly deps: GatewayDeps;
  readonly calls: UpstreamCalls;
  /** The connections' `maxConcurrent` limits. */
  readonly slots: ConnectionSlots;
}

/** What one client request collects across its attempts. */
export interface RequestState {
  readonly attempts: AttemptRecord[];
  /** Upstream bodies by protocol and model, so a fall-through to the same shape reuses one. */
  bodies: Map<string, UpstreamBody> | undefined;
  /** The first field a target's protocol refused; the answer when no target could carry it. */
  refusal?: ProtocolError;
  rateLimited: boolean;
  /** When the last 429 said to come back (retry or reset instant), if it said. */
  rateLimitRetryAt: string | null;
}

/** A request's state before its first attempt; a traced request's trace lists its attempts. */
export function newRequestState(request: ClientRequest): RequestState {
  const state: RequestState = {
    attempts: [],
    bodies: undefined,
    rateLimited: false,
    rateLimitRetryAt: null,
  };
  if (request.trace) request.trace.attempts = state.attempts;
  return state;
}

/**
 * The body `target` will be sent for `request`, made before its reservation so the worst case
 * is priced on what goes upstream (`state.bodies` keeps it for the attempt). Undefined when it
 * cannot be made: the target cannot carry the body, or its connection has no connector; the
 * reservation then reads the client's body, and {@link tryTarget} skips the target, saying why.
 */
export function bodyToPrice(
  context: TargetContext,
  target: DispatchTarget,
  request: ClientRequest,
  state: RequestState,
): UpstreamBody | undefined {
  state.bodies ??= new Map();
  try {
    return context.calls.body(target, request, state.bodies);
  } catch (error) {
    if (ProtocolError.isInstance(error) || ConnectorError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * One attempt after its reservation and its connection slot: send, observe the answer's quota
 * signals, then serve it (a whole answer, read whole or collected from a streams-only upstream,
 * or a stream) or fall through. Rejects with `client_closed_request` when the client hung up. A
 * body the target's protocol cannot carry skips the target (`unsupported_field` or
 * `invalid_field`, the error kept in `state.refusal`). The slot is the caller's to give back,
 * unless a committed stream took it over (`handOff()`) to give back when it ends. So is the
 * reservation, unless the upstream answered 2xx: then the attempt settles it whether or not
 * the answer is served (rule B8), and the caller's release does nothing.
 */
export async function tryTarget(
  context: TargetContext,
  attempt: Attempt,
  hold: ReservationHold,
  slot: ConnectionSlot,
  request: ClientRequest,
  state: RequestState,
): Promise<TargetOutcome> {
  const { deps } = context;
  const { target, connectionId } = attempt;
  state.bodies ??= new Map();
  let upstreamRequest: UpstreamRequest;
  let prepared: UpstreamBody;
  let collect: boolean;
  try {
    const call = context.calls.request(target, request, state.bodies);
    ({
      upstream: upstreamRequest,
      body: prepared,
      collect,
    } = call instanceof Promise ? await call : call);
  } catch (error) {
    if (ConnectorError.isInstance(error)) return credentialFailed(context, attempt, error);
    if (!ProtocolError.isInstance(error)) throw error;
    // This target's protocol cannot carry the request faithfully: a later target may.
    state.refusal ??= error;
    attempt.fallThrough(error.code, { log: `target cannot carry ${error.field}, skipping it` });
    return FELL_THROUGH;
  }
  const startedAt = performance.now();
  let response: UpstreamResponse;
  try {
    response = await deps.upstream.send(upstreamRequest);
    if (response.status === 401) {
      // A refreshable token refused: refresh once and send this target again.
      const again = await context.calls.afterUnauthorized(
        target,
        request,
        state.bodies,
        upstreamRequest,
      );
      if (again) {
        response.discard();
        upstreamRequest = again.upstream;
        response = await deps.upstream.send(upstreamRequest);
      }
    }
  } catch (error) {
    if (ConnectorError.isInstance(error)) return credentialFailed(context, attempt, error);
    if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
    const code = UpstreamError.isInstance(error) ? error.code : "network";
    attempt.fallThrough(code, { cool: true, log: "upstream unreachable, falling through" });
    return FELL_THROUGH;
  }
  deps.metrics.observeUpstreamLatency(connectionId, performance.now() - startedAt);
  attempt.answered(response.status);
  // Whatever of this answer reaches the client goes through the redactor of the credential it
  // was sent with: an upstream that echoes it must not hand it to whoever holds a gateway key.
  const redactor = redactorFor(target.connection, upstreamRequest);

  if (response.status >= 300) {
    const text = await response.text().catch(() => "");
    const body = parseJsonObject(text) ?? undefined;
    const failure = context.calls.observe(target, response.status, response.headers, body ?? text);
    if (isClientFaultAnswer(response.status, failure)) {
      const clientText = redactor.redact(text);
      const reply = clientFaultReply(
        attempt,
        request,
        response.status,
        clientText === text ? body : (parseJsonObject(clientText) ?? undefined),
        state.attempts.length,
        { text: clientText, prepared },
      );
      return { served: reply };
    }
    if (response.status === 429) {
      state.rateLimited = true;
      state.rateLimitRetryAt = failure?.retryAt ?? failure?.resetAt ?? null;
    }
    attempt.fallThrough(failure?.kind ?? "upstream_error", {
      log: failure?.detail
        ? `${failure.detail}, falling through`
        : "upstream refused, falling through",
      reason: failure?.detail,
    });
    return FELL_THROUGH;
  }

  context.calls.observe(target, response.status, response.headers);
  deps.cooldowns.succeed(connectionId, { model: target.model });
  if (!request.stream) {
    const whole = {
      deps,
      attempt,
      hold,
      request,
      attemptCount: state.attempts.length,
      prepared,
      redactor,
    };
    // An upstream that only streams was asked for a stream: it is collected into one answer.
    if (collect) return serveCollected(whole, context.calls.watch(target, response));
    return serveNonStream(whole, response);
  }
  const watched = context.calls.watch(target, response);
  const streamed = await streamStarted(
    deps,
    target,
    hold,
    slot,
    request,
    watched,
    state,
    prepared,
    redactor,
  );
  // A committed stream settles when it ends; one that ended before that has settled already.
  hold.handOff();
  if (streamed.ok) {
    slot.handOff(); // held until the stream ends, however it ends
    return { served: streamed.reply };
  }
  if (streamed.clientGone) throw clientGone(null);
  // Nothing reached the client yet: fall through to the next target.
  attempt.fallThrough(streamed.reason, { cool: true });
  return FELL_THROUGH;
}

/**
 * How a connector's refusal cools its connection: an account that could not be set up (Code
 * Assist onboarding refused or not done in time) is the connection's own setup, fixed by its
 * operator or by the provider, so it is `misconfigured` (a short cooldown naming the problem);
 * anything else about the credential needs a new login (`auth_invalid`).
 */
function credentialFailure(error: ConnectorError): UpstreamFailure {
  const base = { retryAt: null, resetAt: null, code: error.code };
  if (error.code === "account_setup_failed") {
    return { ...base, kind: "misconfigured", detail: error.message };
  }
  return { ...base, kind: "auth_invalid" };
}

/**
 * The connection's credential or account could not be had (a refresh refused, no stored login,
 * an account that could not be set up): that connection alone is cooled (see
 * `credentialFailure`), and the request falls through to the next target. The error names the
 * connection, never a token.
 */
function credentialFailed(
  context: TargetContext,
  attempt: Attempt,
  error: ConnectorError,
): TargetOutcome {
  context.deps.cooldowns.fail(attempt.connectionId, credentialFailure(error), undefined);
  attempt.fallThrough(error.code, { log: error.message });
  return FELL_THROUGH;
}

/** Starts relaying the upstream stream; committed once its first client bytes exist. */
function streamStarted(
  deps: GatewayDeps,
  target: DispatchTarget,
  hold: ReservationHold,
  slot: ConnectionSlot,
  request: ClientRequest,
  response: UpstreamResponse,
  state: RequestState,
  prepared: UpstreamBody,
  redactor: SecretRedactor,
) {
  return streamResponse({
    deps,
    request,
    target,
    response,
    prepared,
    redactor,
    attempts: state.attempts,
    reservation: hold.reservation,
    worstCase: hold.worstCase,
    slot,
  });
}
