import type { GatewayDeps } from "../deps";
import type { NormalizedUsage } from "../protocols";
import type { SecretRedactor } from "../upstream/secret-redactor";
import type { Attempt } from "./attempt";
import { receiptOf, writeReceipt } from "./receipt";
import type { ReservationHold } from "./reservation";
import { pinServed } from "./session-placement";
import { settleSpend } from "./settle";
import type { ClientRequest, TargetOutcome } from "./types";
import { type UpstreamBody, writeDropped } from "./upstream-body";

/** One attempt about to serve a whole (non-stream) answer: what every way of reading it shares. */
export interface WholeAnswerContext {
  readonly deps: GatewayDeps;
  readonly attempt: Attempt;
  readonly hold: ReservationHold;
  readonly request: ClientRequest;
  /** Targets tried, this one included (the receipt's `x-planfirst-attempts`). */
  readonly attemptCount: number;
  /** The body sent upstream: its protocol, the fields dropped and the decoded client request. */
  readonly prepared: UpstreamBody;
  /** Removes the connection's credentials from the client's body; none when absent. */
  readonly redactor?: SecretRedactor;
}

/**
 * Serves `clientText`, a whole answer already in the client's protocol: the connection's
 * credentials redacted out of it, the reservation handed off and settled from `usage` (the input
 * estimate when the upstream reported none), the request counted `ok`, its session pinned to
 * this target, and a 200 with the receipt headers and `x-planfirst-dropped` listing `dropped`
 * when it is not empty.
 */
export async function replyWhole(
  context: WholeAnswerContext,
  clientText: string,
  usage: NormalizedUsage | null,
  dropped: readonly string[],
): Promise<TargetOutcome> {
  const { deps, attempt, hold, request, redactor } = context;
  const text = redactor && !redactor.empty ? redactor.redact(clientText) : clientText;
  const reservation = hold.handOff();
  const costUsd = reservation
    ? await settleSpend(
        deps,
        attempt.target,
        reservation,
        usage,
        request,
        hold.estimatedInputTokens,
      )
    : "0";
  attempt.finish("ok");
  pinServed(deps, request, attempt.target);
  const trace = request.trace;
  if (trace) {
    trace.answeredBy(attempt.target.rung, attempt.connectionId, attempt.target.model, dropped);
    trace.booked(usage, costUsd);
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  writeReceipt(headers, receiptOf(attempt.target, context.attemptCount, costUsd));
  writeDropped(headers, dropped);
  return { served: { kind: "body", status: 200, headers, body: text } };
}
