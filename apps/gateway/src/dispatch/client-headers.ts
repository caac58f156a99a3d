import type { UpstreamRequest } from "../upstream";
import type { ClientHeaders, ClientRequest } from "./types";

/**
 * Client headers a route keeps for forwarding: Anthropic's version and beta list, Claude Code's
 * attribution headers, and the user agent. Nothing that authenticates the client is kept.
 */
export const FORWARDED_CLIENT_HEADERS = [
  "anthropic-version",
  "anthropic-beta",
  "x-claude-code-session-id",
  "x-claude-code-agent-id",
  "x-claude-code-parent-agent-id",
  "x-app",
  "user-agent",
] as const;

/**
 * Other clients' own identification a route also keeps, for the connectors that forward it to
 * their provider (the Codex CLI's `originator`, `version` and `session_id` to the Codex backend;
 * an editor's Copilot headers). {@link withClientHeaders} never sends these to Anthropic.
 */
export const CONNECTOR_CLIENT_HEADERS = [
  "originator",
  "version",
  "session_id",
  "editor-version",
  "editor-plugin-version",
  "copilot-integration-id",
] as const;

const PICKED_CLIENT_HEADERS: readonly string[] = [
  ...FORWARDED_CLIENT_HEADERS,
  ...CONNECTOR_CLIENT_HEADERS,
];

/** Picks the forwarded client headers from a header lookup; undefined when there are none. */
export function pickClientHeaders(
  header: (name: string) => string | undefined,
): ClientHeaders | undefined {
  let picked: Record<string, string> | undefined;
  for (const name of PICKED_CLIENT_HEADERS) {
    const value = header(name);
    if (value === undefined || value === "") continue;
    picked ??= {};
    picked[name] = value;
  }
  return picked;
}

/**
 * Applies the client's headers to an upstream request built from the connection's own (this
 * runs after the connection's headers, so the two compose). Only Anthropic-protocol upstreams
 * get them: the client's `anthropic-version`, its `anthropic-beta` flags merged with the
 * connection's (`oauth-2025-04-20`, say) without duplicates, its attribution headers and user
 * agent, and `?beta=true`. The client's identity is passed through as it came, never rewritten.
 * Credentials are never among them: the connection's auth headers are left as they are.
 */
export function withClientHeaders(
  upstream: UpstreamRequest,
  request: ClientRequest,
  upstreamIsAnthropic: boolean,
): UpstreamRequest {
  const client = request.clientHeaders;
  if (!upstreamIsAnthropic || (client === undefined && request.query === undefined)) {
    return upstream;
  }
  const headers = { ...upstream.headers };
  if (client) {
    for (const name of FORWARDED_CLIENT_HEADERS) {
      const value = client[name];
      if (value === undefined) continue;
      headers[name] = name === "anthropic-beta" ? mergeBetas(headers[name], value) : value;
    }
  }
  const url = request.query ? withQuery(upstream.url, request.query) : upstream.url;
  return { ...upstream, url, headers };
}

/** Comma-separated beta flags of both lists, the connection's first, each once. */
export function mergeBetas(connection: string | undefined, client: string): string {
  const flags: string[] = [];
  for (const list of [connection ?? "", client]) {
    for (const raw of list.split(",")) {
      const flag = raw.trim();
      if (flag !== "" && !flags.includes(flag)) flags.push(flag);
    }
  }
  return flags.join(",");
}

function withQuery(url: string, query: string): string {
  return url.includes("?") ? `${url}&${query}` : `${url}?${query}`;
}
