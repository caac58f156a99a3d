import { parseUsagePayload } from "@planfirst/quota-cache";
import type { Logger } from "pino";
import type { GatewayCooldowns, GatewayQuotaCache } from "../deps";
import { GatewayError } from "../errors";
import type { GatewayMetrics } from "../observability/metrics";
import type { RoutedConnection } from "../routing/routing-table";
import { ANTHROPIC_OAUTH_BETA, type UpstreamClient } from "../upstream";
import { observeUsageEvidence } from "./usage-evidence";

/**
 * The usage endpoint of a connection, or null when it has none: Claude OAuth usage
 * (`/api/oauth/usage` on the base URL's origin), Codex (`/backend-api/wham/usage`), Copilot
 * (`https://api.github.com/copilot_internal/user`), OpenRouter (`/api/v1/key`). `usageUrl` in the
 * connection's config wins.
 */
export function usageUrlOf(connection: RoutedConnection): string | null {
  const { config } = connection;
  if (config.usageUrl) return config.usageUrl;
  const origin = new URL(config.baseUrl).origin;
  switch (config.provider) {
    case "claude":
      return config.authType === "oauth" ? `${origin}/api/oauth/usage` : null;
    case "codex":
      return `${origin}/backend-api/wham/usage`;
    case "github-copilot":
      return "https://api.github.com/copilot_internal/user";
    case "openrouter":
      return `${origin}/api/v1/key`;
    default:
      return null;
  }
}

/** Headers a usage endpoint wants for a connection's credential. */
function usageHeaders(connection: RoutedConnection): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  const credential = connection.credential;
  if (!credential) return headers;
  if (connection.config.provider === "github-copilot") {
    headers.authorization = `token ${credential}`;
  } else {
    headers.authorization = `Bearer ${credential}`;
  }
  if (connection.config.provider === "claude") headers["anthropic-beta"] = ANTHROPIC_OAUTH_BETA;
  return headers;
}

/**
 * Polls one connection's usage endpoint and feeds its windows to the quota cache; a 4xx/5xx
 * reply is classified like any upstream response (401/403 cools the connection until re-auth).
 * Rejects on failure so the scheduler records it; never includes the credential in an error.
 */
export function createUsagePoller(deps: {
  connections: ReadonlyMap<string, RoutedConnection>;
  upstream: UpstreamClient;
  quotaCache: GatewayQuotaCache;
  cooldowns: GatewayCooldowns;
  now: () => number;
  logger: Logger;
  /** Counts implausible times in usage payloads (`planfirst_implausible_times_total`). */
  metrics?: GatewayMetrics;
}): (connectionId: string) => Promise<void> {
  return async (connectionId) => {
    const connection = deps.connections.get(connectionId);
    const url = connection ? usageUrlOf(connection) : null;
    if (!connection || !url || connection.disabledReason !== null) return;
    const response = await deps.upstream.send({
      url,
      method: "GET",
      headers: usageHeaders(connection),
      body: "",
      timeoutMs: 15_000,
    });
    const text = await response.text();
    if (response.status >= 400) {
      if (response.status === 401 || response.status === 403) {
        deps.cooldowns.fail(connectionId, {
          kind: "auth_invalid",
          retryAt: null,
          resetAt: null,
          code: `usage_${response.status}`,
        });
      }
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
    const windows = parseUsagePayload(connection.config.provider, payload, deps.now());
    if (windows.length > 0) deps.quotaCache.observe(connectionId, windows);
    observeUsageEvidence(deps, connectionId, connection.config.provider, payload, deps.now());
    deps.logger.debug({ connection: connectionId, windows: windows.length }, "usage polled");
  };
}

/** Ids of the enabled connections that have a usage endpoint. */
export function polledConnectionIds(connections: ReadonlyMap<string, RoutedConnection>): string[] {
  return [...connections.values()]
    .filter((connection) => connection.disabledReason === null && usageUrlOf(connection) !== null)
    .map((connection) => connection.config.id);
}
