import type { RequestFilter } from "../observability/request-log/request-filter";
import { type ClientIdentity, isAdmin } from "../routing/client-identity";

/**
 * True when `client` may read every key's requests, false when only its own: an admin key (and
 * the anonymous client of a gateway without keys) sees all of them, a client key its own, as
 * with its spend on the rest of the status.
 */
export function seesEveryRequest(client: ClientIdentity): boolean {
  return isAdmin(client);
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
