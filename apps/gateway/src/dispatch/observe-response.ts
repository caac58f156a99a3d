import {
  failureOfStatus,
  parseResponseSignals,
  type UpstreamFailure,
} from "@planfirst/quota-cache";
import type { GatewayDeps } from "../deps";
import { reportImplausibleTimes } from "../observability/implausible-times";
import type { DispatchTarget } from "../routing/build-pool";
import type { UpstreamResponse } from "../upstream";

/** Upstream statuses that are the client's own fault: answered to it as they are, no cooldown. */
const RETURN_TO_CLIENT = new Set([400, 404, 405, 409, 413, 415, 422]);

/** True when an upstream status is the client's fault and goes back to it unchanged. */
export function isClientFault(status: number): boolean {
  return RETURN_TO_CLIENT.has(status);
}

/** Failure kinds that say a 4xx is about the connection, not the client's request. */
const CONNECTION_FAULTS: ReadonlySet<UpstreamFailure["kind"]> = new Set([
  "money_refusal",
  "misconfigured",
]);

/**
 * True when an upstream answer goes back to the client as its own fault: a client-fault status
 * that the parser did not read as the connection's own problem. A Claude 400 "Third-party apps
 * now draw from your extra usage…" says this connection would bill (E4); a Copilot 400 "missing
 * Editor-Version header" says the connection is set up wrong. Neither says the request is wrong:
 * the request falls through to the next target instead.
 */
export function isClientFaultAnswer(status: number, failure: UpstreamFailure | undefined): boolean {
  return isClientFault(status) && (failure === undefined || !CONNECTION_FAULTS.has(failure.kind));
}

/**
 * Passive quota observation: every response's signals go to the connection that sent it. A
 * failure the provider's parser did not name is read from the bare status (quota-cache's
 * `failureOfStatus`), except for the client's own faults, which say nothing about the
 * connection. The failure, if any, is recorded and cools the connection for the model.
 * `signalsProvider` picks quota-cache's parser (the connector's `signalsProvider`, else the
 * target's provider).
 */
export function observeResponse(
  deps: Pick<GatewayDeps, "quotaCache" | "cooldowns" | "now" | "metrics" | "logger">,
  target: DispatchTarget,
  status: number,
  headers: UpstreamResponse["headers"],
  body: unknown,
  /** The connector's own reading of the failure; wins over the generic parser's. */
  classified?: UpstreamFailure | null,
  signalsProvider: string = target.provider,
): UpstreamFailure | undefined {
  const connectionId = target.connection.config.id;
  const signals = parseResponseSignals(signalsProvider, {
    status,
    headers,
    body,
    observedAtMs: deps.now(),
    model: target.model,
  });
  if (signals.windows.length > 0) deps.quotaCache.observe(connectionId, signals.windows);
  // E1/E2/E4: the account's own word on whether it bills past (or instead of) its plan; stored
  // before the failure so an `on` from a money refusal is in force for the very next pool build.
  if (signals.evidence) deps.quotaCache.observeEvidence(connectionId, signals.evidence);
  reportImplausibleTimes(deps, connectionId, signals.implausible);
  let failure = classified ?? signals.failure;
  if (!failure && !isClientFault(status)) failure = failureOfStatus(status);
  if (failure) {
    deps.quotaCache.observeFailure(connectionId, failure, { model: target.model });
    deps.cooldowns.fail(connectionId, failure, { model: target.model });
  }
  return failure;
}
