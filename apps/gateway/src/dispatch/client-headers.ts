import type { UpstreamConnector } from "../connectors/connector";
import { CODECS, type WireForwarding } from "../protocols";
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

const WIRES: readonly WireForwarding[] = Object.values(CODECS).flatMap((codec) =>
  codec.forwarding ? [codec.forwarding] : [],
);

/** Query parameters some wire forwards, as `[name, value, "name=value"]`. */
const PICKED_QUERY: readonly (readonly [string, string, string])[] = [
  ...new Set(WIRES.flatMap((wire) => wire.query)),
].map((pair) => {
  const equals = pair.indexOf("=");
  return [pair.slice(0, equals), pair.slice(equals + 1), pair] as const;
});

/** A request's query parameters by name (`URLSearchParams` is one). */
interface QueryParams {
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
 * The client's query parameters that the upstream's wire forwards (`forwarding`, the upstream
 * codec's: Claude Code's `?beta=true` on the Messages API) appended to the upstream URL; any
 * other upstream request is returned as it is. Headers are the connector's to forward.
 */
export function withClientQuery(
  upstream: UpstreamRequest,
  request: ClientRequest,
  forwarding: WireForwarding | null,
): UpstreamRequest {
  const query = forwarding && request.query && forwardedQuery(request.query, forwarding.query);
  if (!query) return upstream;
  const url = upstream.url.includes("?") ? `${upstream.url}&${query}` : `${upstream.url}?${query}`;
  return { ...upstream, url };
}

/** The parameters of `query` (`a=b&c=d`) that the wire forwards; undefined when none. */
function forwardedQuery(query: string, forwarded: readonly string[]): string | undefined {
  if (forwarded.includes(query)) return query;
  const kept = query.split("&").filter((pair) => forwarded.includes(pair));
  return kept.length > 0 ? kept.join("&") : undefined;
}
