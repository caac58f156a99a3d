import type { GatewayDeps } from "../deps";
import type { NormalizedUsage } from "../protocols";
import type { SecretRedactor } from "../upstream/secret-redactor";
import type { Attempt } from "./attempt";
import { receiptOf, writeReceipt } from "./receipt";
import type { ReservationHold } from "./reservation";
import { pinServed } from "./session-placement";
import { type ReportedUsage, settleSpend } from "./settle";
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
 * credentials redacted out of it, the reservation handed off and settled from `usage` (the amount
 * reserved when the upstream reported none, rule B8), the request counted `ok`, its session pinned to
 * this target, and a 200 with the receipt headers and `x-planfirst-dropped` listing `dropped`
 * when it is not empty.
 */
export async function replyWhole(
  context: WholeAnswerContext,
  clientText: string,
  usage: NormalizedUsage | null,
  dropped: readonly string[],
): Promise<TargetOutcome> {
  const { deps, attempt, request, redactor } = context;
  const text = redactor && !redactor.empty ? redactor.redact(clientText) : clientText;
  const costUsd = await settleHold(context, { usage, final: true });
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

/**
 * Books a 2xx answer that will not be served (rule B8): its body broke off or could not be read,
 * its collected stream was cut or failed, or its client went away. The upstream has run the
 * request, so the reservation is settled from what it reported (see `settleSpend`), never given
 * back, and the cost joins the request's record. The caller then falls through (or rejects for
 * a client that went away).
 */
export async function bookUnserved(
  context: Pick<WholeAnswerContext, "deps" | "attempt" | "hold" | "request">,
  reported: ReportedUsage,
): Promise<void> {
  const costUsd = await settleHold(context, reported);
  context.request.trace?.booked(reported.usage, costUsd);
}

/**
 * Hands the attempt's reservation off and settles it from what the answer reported; the cost
 * booked, a decimal USD string ("0" when nothing was reserved).
 */
function settleHold(
  context: Pick<WholeAnswerContext, "deps" | "attempt" | "hold" | "request">,
  reported: ReportedUsage,
): Promise<string> {
  const { deps, attempt, hold, request } = context;
  const reservation = hold.handOff();
  if (!reservation) return Promise.resolve("0");
  return settleSpend(deps, attempt.target, reservation, reported, request, hold.worstCase);
}
