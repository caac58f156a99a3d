import {
  failureOfStatus,
  type ResponseSignals,
  type UpstreamFailure,
  type UsageSignals,
} from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { GatewayDeps, GatewayQuotaCache } from "../deps";
import { reportImplausibleTimes } from "../observability/implausible-times";
import type { GatewayMetrics } from "../observability/metrics";
import type { DispatchTarget } from "../routing/build-pool";

/** Upstream statuses that are the client's own fault: answered to it as they are, no cooldown. */
const RETURN_TO_CLIENT = new Set([400, 404, 405, 409, 413, 415, 422]);

/** True when an upstream status is the client's fault and goes back to it unchanged. */
function isClientFault(status: number): boolean {
  return RETURN_TO_CLIENT.has(status);
}

/**
 * Failure kinds that say a 4xx is not about the client's request: about the connection, or about
 * which client program may use it.
 */
const CONNECTION_FAULTS: ReadonlySet<UpstreamFailure["kind"]> = new Set([
  "money_refusal",
  "misconfigured",
  "client_refused",
]);

/**
 * True when an upstream answer goes back to the client as its own fault: a client-fault status
 * that the connector did not read as the connection's own problem. A Claude 400 "Third-party apps
 * now draw from your extra usage…" says this connection would bill (E4); a Copilot 400 "missing
 * Editor-Version header" says the connection is set up wrong; a Claude login's 400 "only
 * authorized for use with Claude Code" says it serves another client program. None says the
 * request is wrong: the request falls through to the next target instead.
 */
export function isClientFaultAnswer(status: number, failure: UpstreamFailure | undefined): boolean {
  return isClientFault(status) && (failure === undefined || !CONNECTION_FAULTS.has(failure.kind));
}

/** What recording a reading needs: the quota cache, and where implausible times are reported. */
interface ReadingDeps {
  quotaCache: Pick<GatewayQuotaCache, "observe" | "observeEvidence">;
  logger: Logger;
  /** Counts implausible times (`planfirst_implausible_times_total`); absent = not counted. */
  metrics?: GatewayMetrics;
}

/**
 * Records a reading of the connection, from an answer, a stream event or a usage payload, its
 * times already bounded: its windows, its overage evidence (E1/E2), and every time it carried
 * beyond what its window allows (counted, and warned about once).
 */
export function observeReading(
  deps: ReadingDeps,
  connectionId: string,
  reading: UsageSignals,
): void {
  if (reading.windows.length > 0) deps.quotaCache.observe(connectionId, reading.windows);
  if (reading.evidence) deps.quotaCache.observeEvidence(connectionId, reading.evidence);
  if (reading.implausible && deps.metrics) {
    reportImplausibleTimes({ ...deps, metrics: deps.metrics }, connectionId, reading.implausible);
  }
}

/**
 * Passive quota observation: what the connection's connector read in one of its answers goes to
 * that connection ({@link observeReading}; evidence is stored before the failure, so an `on` from
 * a money refusal is in force for the very next pool build, E4). A failure the connector did not
 * name is read from the bare status (quota-cache's `failureOfStatus`), except for the client's
 * own faults, which say nothing about the connection. The failure, if any, is recorded and cools
 * the connection for the model.
 */
export function observeResponse(
  deps: Pick<GatewayDeps, "quotaCache" | "cooldowns" | "metrics" | "logger">,
  target: DispatchTarget,
  status: number,
  signals: ResponseSignals,
): UpstreamFailure | undefined {
  const connectionId = target.connection.config.id;
  observeReading(deps, connectionId, signals);
  let failure = signals.failure;
  if (!failure && !isClientFault(status)) failure = failureOfStatus(status);
  if (failure) {
    deps.quotaCache.observeFailure(connectionId, failure, { model: target.model });
    deps.cooldowns.fail(connectionId, failure, { model: target.model });
  }
  return failure;
}
