import { upstreamErrorMessage, upstreamErrorType } from "../http/error-body";
import type { GatewayReply } from "../http/reply";
import { clientWireOf } from "../protocols";
import type { Attempt } from "./attempt";
import { receiptOf, writeReceipt } from "./receipt";
import type { ClientRequest } from "./types";
import type { UpstreamBody } from "./upstream-body";

/**
 * The answer to a client whose request the upstream refused as the client's own fault (400,
 * 404, 413, 422, …): the upstream's status and message in the client's error shape, with the
 * receipt; nothing is spent and no other target is tried. When the upstream speaks the
 * client's own protocol its error body reaches the client verbatim (the client reads its own
 * provider's errors: Claude Code's "model not found", say), the gateway's reason in
 * `x-planfirst-reason`.
 */
export function clientFaultReply(
  attempt: Attempt,
  request: ClientRequest,
  status: number,
  body: unknown,
  attemptCount: number,
  raw?: { readonly text: string; readonly prepared: UpstreamBody },
): GatewayReply {
  attempt.finish("client_error");
  request.trace?.answeredBy(
    attempt.target.rung,
    attempt.connectionId,
    attempt.target.model,
    raw?.prepared.dropped ?? [],
  );
  const headers: Record<string, string> = { "content-type": "application/json" };
  writeReceipt(headers, receiptOf(attempt.target, attemptCount, "0"));
  if (raw?.prepared.leg.relay && body !== undefined) {
    headers["x-planfirst-reason"] = "upstream_rejected_request";
    return { kind: "body", status, headers, body: raw.text };
  }
  return {
    kind: "body",
    status,
    headers,
    body: JSON.stringify(
      clientWireOf(request.protocol).errorBody({
        message: upstreamErrorMessage(body, `upstream answered ${status}`),
        type: upstreamErrorType(body) ?? "invalid_request_error",
        code: "upstream_rejected_request",
      }),
    ),
  };
}
