import {
  failureOfStatus,
  parseResponseSignals,
  type UpstreamFailure,
} from "@planfirst/quota-cache";
import type { GatewayDeps } from "../deps";
import type { DispatchTarget } from "../routing/build-pool";
import type { UpstreamResponse } from "../upstream";

/** Upstream statuses that are the client's own fault: answered to it as they are, no cooldown. */
const RETURN_TO_CLIENT = new Set([400, 404, 405, 409, 413, 415, 422]);

/** True when an upstream status is the client's fault and goes back to it unchanged. */
export function isClientFault(status: number): boolean {
  return RETURN_TO_CLIENT.has(status);
}

/**
 * Passive quota observation: every response's signals go to the connection that sent it. A
 * failure the provider's parser did not name is read from the bare status (quota-cache's
 * `failureOfStatus`), except for the client's own faults, which say nothing about the
 * connection. The failure, if any, is recorded and cools the connection for the model.
 */
export function observeResponse(
  deps: Pick<GatewayDeps, "quotaCache" | "cooldowns" | "now">,
  target: DispatchTarget,
  status: number,
  headers: UpstreamResponse["headers"],
  body: unknown,
): UpstreamFailure | undefined {
  const connectionId = target.connection.config.id;
  const signals = parseResponseSignals(target.provider, {
    status,
    headers,
    body,
    observedAtMs: deps.now(),
    model: target.model,
  });
  if (signals.windows.length > 0) deps.quotaCache.observe(connectionId, signals.windows);
  let failure = signals.failure;
  if (!failure && !isClientFault(status)) failure = failureOfStatus(status);
  if (failure) {
    deps.quotaCache.observeFailure(connectionId, failure, { model: target.model });
    deps.cooldowns.fail(connectionId, failure, { model: target.model });
  }
  return failure;
}
