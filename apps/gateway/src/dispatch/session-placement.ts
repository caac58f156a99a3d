import type { SessionPin } from "@planfirst/quota-cache";
import type { GatewayDeps, GatewaySessions } from "../deps";
import type { AttemptRecord } from "../errors";
import type { GatewayReply } from "../http/reply";
import type { DispatchTarget } from "../routing/build-pool";
import {
  type AffinityDecision,
  type AffinityMoveReason,
  type AffinityOutcome,
  type PinnedTarget,
  placeSession,
} from "../routing/session-affinity";
import { pinKeyOf, type SessionKey } from "../routing/session-key";
import type { ClientRequest } from "./types";

/** The answer header naming a request's session and how affinity placed it. */
export const SESSION_HEADER = "x-planfirst-session";

/**
 * The session side of the dispatcher (ladder.md §16): reads a request's pin, asks the affinity
 * step where it goes, and writes `x-planfirst-session` on the answer. It reads the session
 * book's mirror only (never waits on a store), so a store outage means no pin, never a failure.
 */
export class SessionPlacer {
  constructor(
    private readonly sessions: GatewaySessions | undefined,
    private readonly pinnedOut: (pin: PinnedTarget) => AffinityMoveReason,
  ) {}

  /**
   * The live pin of a request's session for the model id it asked for; undefined without a
   * session, with affinity off, and for a conversation's first turn, which is a new session
   * whatever another one pinned.
   */
  pinOf(session: SessionKey | undefined, modelId: string): SessionPin | undefined {
    if (session === undefined || session.opening || this.sessions?.enabled !== true) {
      return undefined;
    }
    return this.sessions.pinOf(pinKeyOf(session.hash, modelId));
  }

  /** The affinity step over the ladder's targets (see `placeSession`). */
  decide(targets: readonly DispatchTarget[], pin: SessionPin | undefined): AffinityDecision {
    return placeSession(targets, pin, this.pinnedOut);
  }

  /**
   * Writes `x-planfirst-session: <hash>; affinity=new|hit|moved[; reason=…]` on a routed answer
   * whose request has a session. The outcome is judged against the target that answered (the
   * last attempt): a pinned target that fell through moved the session, for the reason the live
   * state now gives. Returns `reply`.
   */
  answered(
    session: SessionKey | undefined,
    pin: SessionPin | undefined,
    decision: AffinityDecision,
    reply: GatewayReply,
    attempts: readonly AttemptRecord[],
  ): GatewayReply {
    if (session === undefined || this.sessions?.enabled !== true) return reply;
    const served = attempts.at(-1);
    let outcome: AffinityOutcome = "new";
    let reason: AffinityMoveReason | null = null;
    if (pin !== undefined) {
      if (served?.connection === pin.connectionId && served.model === pin.model) outcome = "hit";
      else {
        outcome = "moved";
        reason = decision.reason ?? this.pinnedOut(pin);
      }
    }
    reply.headers[SESSION_HEADER] = sessionHeaderValue(session.hash, outcome, reason);
    return reply;
  }
}

/** The value of {@link SESSION_HEADER}. */
function sessionHeaderValue(
  hash: string,
  outcome: AffinityOutcome,
  reason: AffinityMoveReason | null,
): string {
  return reason === null
    ? `${hash}; affinity=${outcome}`
    : `${hash}; affinity=${outcome}; reason=${reason}`;
}

/**
 * A request of a session was answered in full by `target`: the session is pinned there for the
 * model id it asked for (the book writes only a change, a new session, or a due refresh of an
 * unchanged pin). Called after a whole answer and after a stream that ended cleanly; a failed
 * request pins nothing.
 */
export function pinServed(
  deps: Pick<GatewayDeps, "sessions">,
  request: ClientRequest,
  target: DispatchTarget,
): void {
  const session = request.session;
  if (session === undefined || deps.sessions === undefined) return;
  deps.sessions.pin(pinKeyOf(session.hash, request.modelId), {
    connectionId: target.connection.config.id,
    model: target.model,
  });
}
