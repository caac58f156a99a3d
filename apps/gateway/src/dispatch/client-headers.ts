import { CODECS, type WireForwarding } from "../protocols";
import type { UpstreamRequest } from "../upstream";
import type { ClientHeaders, ClientRequest } from "./types";

/**
 * Client identification an upstream whose wire forwards client headers also receives, beside
 * the wire's own ({@link WireForwarding.headers}): Claude Code's attribution headers and the
 * user agent. Nothing that authenticates the client is kept.
 */
export const FORWARDED_CLIENT_HEADERS = [
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

const WIRES: readonly WireForwarding[] = Object.values(CODECS).flatMap((codec) =>
  codec.forwarding ? [codec.forwarding] : [],
);

const PICKED_CLIENT_HEADERS: readonly string[] = [
  ...new Set([
    ...WIRES.flatMap((wire) => wire.headers),
    ...FORWARDED_CLIENT_HEADERS,
    ...CONNECTOR_CLIENT_HEADERS,
  ]),
];

/** Query parameters some wire forwards, as `[name, value, "name=value"]`. */
const PICKED_QUERY: readonly (readonly [string, string, string])[] = [
  ...new Set(WIRES.flatMap((wire) => wire.query)),
].map((pair) => {
  const equals = pair.indexOf("=");
  return [pair.slice(0, equals), pair.slice(equals + 1), pair] as const;
});

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

/** A request's query parameters by name (`URLSearchParams` is one). */
export interface QueryParams {
  get(name: string): string | null | undefined;
}

/**
 * Picks the query parameters some wire forwards (`beta=true`, see {@link WireForwarding.query})
 * from the client's, as `name=value` joined by `&`; undefined when the client sent none of them
 * with exactly that value. No other query reaches an upstream.
 */
export function pickClientQuery(params: QueryParams | undefined): string | undefined {
  if (params === undefined) return undefined;
  let picked: string | undefined;
  for (const [name, value, text] of PICKED_QUERY) {
    if (params.get(name) !== value) continue;
    picked = picked === undefined ? text : `${picked}&${text}`;
  }
  return picked;
}

/**
 * Applies the client's headers to an upstream request built from the connection's own (this
 * runs after the connection's headers, so the two compose). Only an upstream whose wire
 * forwards client headers gets them (`forwarding`, the upstream codec's `WireForwarding`; the
 * Messages API's): the wire's headers as the client sent them, its list headers merged with the
 * connection's (`anthropic-beta` with `oauth-2025-04-20`, say) without duplicates, the
 * attribution headers and user agent ({@link FORWARDED_CLIENT_HEADERS}), and the wire's query
 * (`?beta=true`). The client's identity is passed through as it came, never rewritten.
 * Credentials are never among them: the connection's auth headers are left as they are.
 */
export function withClientHeaders(
  upstream: UpstreamRequest,
  request: ClientRequest,
  forwarding: WireForwarding | null,
): UpstreamRequest {
  const client = request.clientHeaders;
  if (forwarding === null || (client === undefined && request.query === undefined)) {
    return upstream;
  }
  const headers = { ...upstream.headers };
  if (client) {
    for (const name of forwarding.headers) {
      const value = client[name];
      if (value === undefined) continue;
      headers[name] = forwarding.listHeaders.includes(name)
        ? mergeBetas(headers[name], value)
        : value;
    }
    for (const name of FORWARDED_CLIENT_HEADERS) {
      const value = client[name];
      if (value !== undefined) headers[name] = value;
    }
  }
  const query = request.query && forwardedQuery(request.query, forwarding.query);
  const url = query ? withQuery(upstream.url, query) : upstream.url;
  return { ...upstream, url, headers };
}

/** Comma-separated flags of both lists (beta flags), the connection's first, each once. */
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

/** The parameters of `query` (`a=b&c=d`) that the wire forwards; undefined when none. */
function forwardedQuery(query: string, forwarded: readonly string[]): string | undefined {
  if (forwarded.includes(query)) return query;
  const kept = query.split("&").filter((pair) => forwarded.includes(pair));
  return kept.length > 0 ? kept.join("&") : undefined;
}

function withQuery(url: string, query: string): string {
  return url.includes("?") ? `${url}&${query}` : `${url}?${query}`;
}
