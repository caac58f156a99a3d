import type { RequestFilter } from "../observability/request-log/request-filter";
import type { ClientIdentity } from "../routing/client-identity";

/**
 * True when `client` may read every key's requests, false when only its own. Client keys carry
 * no role yet, so the line is drawn where the rest of the status draws it: a key limited to some
 * connections sees only its own requests; an unlimited key (and the anonymous client of a
 * gateway without keys) sees all of them.
 */
export function seesEveryRequest(client: ClientIdentity): boolean {
  return client.connections === null;
}

/**
 * `filter` as `client` may ask it: a key that sees only its own requests is held to them, and
 * asking for another key's gets null (nothing to show, rather than an error that would confirm
 * the other key exists).
 */
export function requestFilterForClient(
  filter: RequestFilter,
  client: ClientIdentity,
): RequestFilter | null {
  if (seesEveryRequest(client)) return filter;
  if (filter.key !== undefined && filter.key !== client.id) return null;
  return { ...filter, key: client.id };
}
