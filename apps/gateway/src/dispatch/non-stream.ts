import type { GatewayDeps } from "../deps";
import { type NormalizedUsage, responseUsage, translateResponse } from "../protocols";
import { parseJsonObject } from "../protocols/ir/guards";
import { UpstreamError, type UpstreamResponse } from "../upstream";
import type { SecretRedactor } from "../upstream/secret-redactor";
import type { Attempt } from "./attempt";
import { clientGone } from "./client-gone";
import { receiptOf, writeReceipt } from "./receipt";
import type { ReservationHold } from "./reservation";
import { pinServed } from "./session-placement";
import { settleSpend } from "./settle";
import { type ClientRequest, FELL_THROUGH, type TargetOutcome } from "./types";
import { type UpstreamBody, writeDropped } from "./upstream-body";

const JSON_HEADERS = "application/json";

/**
 * Serves a whole (non-stream) 2xx upstream answer: reads the body, passes it through byte for
 * byte when the upstream speaks the client's protocol and translates it through the hub when
 * not (listing dropped fields in `x-planfirst-dropped`), settles spend against the reservation and writes the receipt. A body that
 * breaks off or cannot be read falls through (no cooldown: the upstream did answer); a client
 * that hung up rejects with `client_closed_request`. The client's body passes `redactor` (the
 * connection's credentials replaced by `[redacted]`), after usage was read from the original.
 */
export async function serveNonStream(
  deps: GatewayDeps,
  attempt: Attempt,
  hold: ReservationHold,
  request: ClientRequest,
  response: UpstreamResponse,
  attemptCount: number,
  prepared: UpstreamBody,
  redactor?: SecretRedactor,
): Promise<TargetOutcome> {
  const { target } = attempt;
  const upstreamProtocol = prepared.protocol;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (UpstreamError.isInstance(error) && error.code === "aborted") throw clientGone(error);
    attempt.fallThrough("body_failed");
    return FELL_THROUGH;
  }
  // A completion answer is a JSON object; anything else is no answer (fall through).
  const parsed = parseJsonObject(text);
  if (parsed === null) {
    attempt.fallThrough("invalid_body");
    return FELL_THROUGH;
  }
  let clientText: string;
  let usage: NormalizedUsage | null;
  let dropped: readonly string[] = prepared.dropped;
  if (upstreamProtocol === request.api) {
    clientText = text;
    usage = responseUsage(upstreamProtocol, parsed);
  } else {
    try {
      const translated = translateResponse(upstreamProtocol, request.api, parsed, {
        model: target.model,
        nowMs: deps.now(),
        ...(prepared.request ? { request: prepared.request } : {}),
      });
      clientText = JSON.stringify(translated.body);
      usage = translated.usage;
      if (translated.dropped.length > 0) dropped = [...dropped, ...translated.dropped];
    } catch {
      attempt.fallThrough("invalid_body");
      return FELL_THROUGH;
    }
  }
  if (redactor && !redactor.empty) clientText = redactor.redact(clientText);
  const reservation = hold.handOff();
  const costUsd = reservation
    ? await settleSpend(deps, target, reservation, usage, request, hold.estimatedInputTokens)
    : "0";
  attempt.finish("ok");
  pinServed(deps, request, target);
  const headers: Record<string, string> = { "content-type": JSON_HEADERS };
  writeReceipt(headers, receiptOf(target, attemptCount, costUsd));
  writeDropped(headers, dropped);
  return { served: { kind: "body", status: 200, headers, body: clientText } };
}
