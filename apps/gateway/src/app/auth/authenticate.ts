import { GatewayError } from "../../errors";
import type { ClientIdentity, ClientKeyVerifier } from "./client-keys";

/**
 * The authenticated client of a request, from its `Authorization` and `x-api-key` headers;
 * throws `GatewayError` `invalid_api_key` (401) when keys are configured and none matches.
 */
export function authenticate(
  context: { readonly verifier: ClientKeyVerifier },
  authorization: string | undefined,
  apiKey: string | undefined,
): ClientIdentity {
  const client = context.verifier.verify(authorization, apiKey);
  if (!client) {
    throw new GatewayError({
      code: "invalid_api_key",
      message: "a valid client key is required (Authorization: Bearer or x-api-key)",
    });
  }
  return client;
}
