import { GatewayError } from "../../errors";
import type { ClientIdentity, ClientKeyVerifier } from "./client-keys";

/**
 * Lets an operator action (a config reload) through only for a key that may administer the
 * gateway: client keys must be configured (a gateway without any answers anyone on its
 * loopback address) and the caller's key must be allowed every connection. Otherwise throws
 * `GatewayError` `admin_key_required` (403).
 */
export function requireAdmin(
  context: { readonly verifier: ClientKeyVerifier },
  client: ClientIdentity,
): void {
  if (!context.verifier.open && client.connections === null) return;
  throw new GatewayError({
    code: "admin_key_required",
    message: context.verifier.open
      ? "this gateway has no client keys: configure server.apiKeys to administer it over HTTP, or send it SIGHUP"
      : `client key ${client.id} is limited to some connections and may not administer the gateway`,
  });
}
