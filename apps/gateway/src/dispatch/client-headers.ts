import type { UpstreamConnector } from "../connectors/connector";
import type { UpstreamRequest } from "../upstream";
import type { ClientHeaders, ClientRequest } from "./types";

/**
 * The client headers a route keeps for forwarding: `user-agent`, which every connector forwards,
 * and each header some connection's connector declares it forwards (`forwardedClientHeaders`:
 * Anthropic betas and Claude Code's attribution headers, the Codex CLI's `originator`, an
 * editor's Copilot headers). Nothing that authenticates the client is among them, and each
 * connector sends on only its own.
 */
export function clientHeaderNames(connectors: Iterable<UpstreamConnector>): readonly string[] {
  const names = new Set<string>(["user-agent"]);
  for (const connector of connectors) {
    for (const name of connector.forwardedClientHeaders) names.add(name.toLowerCase());
  }
  return [...names];
}

/** Picks the `names` headers from a header lookup; undefined when there are none. */
export function pickClientHeaders(
  names: readonly string[],
  header: (name: string) => string | undefined,
): ClientHeaders | undefined {
  let picked: Record<string, string> | undefined;
  for (const name of names) {
    const value = header(name);
    if (value === undefined || value === "") continue;
    picked ??= {};
    picked[name] = value;
  }
  return picked;
}

/**
 * The client's `?beta=true` (Claude Code) appended to an Anthropic-protocol upstream's URL; any
 * other upstream request is returned as it is.
 */
export function withClientQuery(
  upstream: UpstreamRequest,
  request: ClientRequest,
  upstreamIsAnthropic: boolean,
): UpstreamRequest {
  const query = request.query;
  if (!upstreamIsAnthropic || query === undefined) return upstream;
  const url = upstream.url.includes("?") ? `${upstream.url}&${query}` : `${upstream.url}?${query}`;
  return { ...upstream, url };
}
