import { GatewayError } from "../../errors";
import { type ClientIdentity, isAdmin } from "../../routing/client-identity";

/**
 * Lets an admin key through and refuses a client key with `GatewayError` `admin_key_required`
 * (403), naming the key by its id: for endpoints that show or change what every key shares
 * (`/metrics`, a reload).
 */
export function requireAdmin(client: ClientIdentity): void {
  if (isAdmin(client)) return;
  throw new GatewayError({
    code: "admin_key_required",
    message: `client key "${client.id}" is not an admin key (server.apiKeys[].role): it may not administer the gateway or read what every key shares`,
  });
}
