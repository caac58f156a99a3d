import { boundSignals, type UpstreamFailure } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { UpstreamConnector, UsageRequest } from "../connectors/connector";
import { ConnectorError } from "../connectors/connector-error";
import type { GatewayCooldowns, GatewayQuotaCache } from "../deps";
import { observeReading } from "../dispatch/observe-response";
import { sentCredential } from "../dispatch/sent-credential";
import { GatewayError } from "../errors";
import type { GatewayMetrics } from "../observability/metrics";
import type { RoutedConnection } from "../routing/routing-table";
import type { UpstreamClient, UpstreamResponse } from "../upstream";

/** What a usage poller reads and writes. */
interface UsagePollerDeps {
  connections: ReadonlyMap<string, RoutedConnection>;
  /** Connection id → its connector; a connection without one is not polled. */
  connectors: ReadonlyMap<string, UpstreamConnector>;
  upstream: UpstreamClient;
  quotaCache: GatewayQuotaCache;
  cooldowns: GatewayCooldowns;
  now: () => number;
  logger: Logger;
  /** Counts implausible times in usage payloads (`planfirst_implausible_times_total`). */
  metrics?: GatewayMetrics;
}

const USAGE_TIMEOUT_MS = 15_000;

/**
 * Polls one connection's usage endpoint (`connector.usageRequest()`; null = the provider has none)
 * and records what `connector.readUsage` reads in the payload, its times bounded (quota-cache
 * `boundSignals`): windows, overage evidence, implausible times. A 401 refreshes the credential
 * once and asks again; a second 401, a 403, a credential that cannot be refreshed, or a refusal
 * the connector reads inside a 2xx (z.ai's `success: false`) cools the connection as
 * `auth_invalid` until it is logged in again. Rejects on failure so the scheduler records it;
 * never includes a credential in an error.
 */
export function createUsagePoller(deps: UsagePollerDeps): (connectionId: string) => Promise<void> {
  return async (connectionId) => {
    const connection = deps.connections.get(connectionId);
    const connector = deps.connectors.get(connectionId);
    if (!connection || !connector || connection.disabledReason !== null) return;
    const authInvalid = (code: string) =>
      deps.cooldowns.fail(connectionId, authFailure(code), undefined);

    let request = await usageRequestOf(connector, connectionId, authInvalid);
    if (request === null) return;
    let response = await send(deps, request);
    if (response.status === 401) {
      await response.text().catch(() => "");
      connector.invalidateCredential(sentCredential(request.headers));
      const again = await usageRequestOf(connector, connectionId, authInvalid);
      // A static key gives the same key back: asking again would only be refused again.
      if (again !== null && sentCredential(again.headers) !== sentCredential(request.headers)) {
        request = again;
        response = await send(deps, request);
      }
    }
    const text = await response.text();
    if (response.status >= 400) {
      if (response.status === 401 || response.status === 403)
        authInvalid(`usage_${response.status}`);
      throw new GatewayError({
        code: "usage_poll_failed",
        message: `usage endpoint of ${connectionId} answered ${response.status}`,
        details: { connection: connectionId, status: response.status },
      });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (cause) {
      throw new GatewayError({
        code: "usage_poll_failed",
        message: `usage endpoint of ${connectionId} sent a body that is not JSON`,
        details: { connection: connectionId },
        cause,
      });
    }
    const observedAtMs = deps.now();
    const reading = boundSignals(connector.readUsage(payload, observedAtMs), observedAtMs);
    if (reading.refusal !== undefined) {
      authInvalid(`usage_refused_${reading.refusal}`);
      throw new GatewayError({
        code: "usage_poll_failed",
        message: `usage endpoint of ${connectionId} refused the key (code ${reading.refusal})`,
        details: { connection: connectionId, status: response.status },
      });
    }
    observeReading(deps, connectionId, reading);
    deps.logger.debug(
      { connection: connectionId, windows: reading.windows.length },
      "usage polled",
    );
  };
}

async function usageRequestOf(
  connector: UpstreamConnector,
  connectionId: string,
  authInvalid: (code: string) => void,
): Promise<UsageRequest | null> {
  try {
    return await connector.usageRequest();
  } catch (error) {
    if (!ConnectorError.isInstance(error)) throw error;
    authInvalid(error.code);
    throw new GatewayError({
      code: "usage_poll_failed",
      message: error.message,
      details: { connection: connectionId },
    });
  }
}

function send(deps: UsagePollerDeps, request: UsageRequest): Promise<UpstreamResponse> {
  return deps.upstream.send({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body ?? "",
    timeoutMs: USAGE_TIMEOUT_MS,
  });
}

function authFailure(code: string): UpstreamFailure {
  return { kind: "auth_invalid", retryAt: null, resetAt: null, code };
}

/**
 * Ids of the enabled connections whose connector has a usage endpoint to poll: asked once at
 * start; a connector that answers null at once has none. One that has to load or refresh its
 * token first answers with a promise and is polled (its failure is the first poll's to report).
 */
export function polledConnectionIds(
  connections: ReadonlyMap<string, RoutedConnection>,
  connectors: ReadonlyMap<string, UpstreamConnector>,
): string[] {
  const ids: string[] = [];
  for (const connection of connections.values()) {
    if (connection.disabledReason !== null) continue;
    const connector = connectors.get(connection.config.id);
    if (!connector) continue;
    let none = false;
    try {
      const request = connector.usageRequest();
      none = request === null;
      if (request instanceof Promise) request.catch(() => undefined);
    } catch {
      // A synchronous refusal (no account id, say): the first poll reports it.
    }
    if (!none) ids.push(connection.config.id);
  }
  return ids;
}
