import type { Context } from "hono";
import { GatewayError } from "../../errors";
import { createStatusSessions, type StatusSessions } from "../../status/status-session";
import type { AppContext, GatewayEnv } from "../app-context";
import type { ClientIdentity } from "./client-keys";

/**
 * Who is asking on a route the status page reads (the page, `/v1/status`, `/v1/requests`): a
 * client key (`Authorization: Bearer`, `x-api-key`) or the page's session cookie.
 */
interface StatusClients {
  readonly sessions: StatusSessions;
  /** The client of the request; null when neither a key nor the cookie is valid. */
  clientOf(c: Context<GatewayEnv>): ClientIdentity | null;
  /** `clientOf`, or `GatewayError` `invalid_api_key` (401) when there is none. */
  requireClient(c: Context<GatewayEnv>): ClientIdentity;
}

/** Builds the status routes' client check over the app's keys (session tokens computed once). */
export function createStatusClients(app: AppContext): StatusClients {
  const sessions = createStatusSessions(app.deps.secrets.clientKeys);
  function clientOf(c: Context<GatewayEnv>): ClientIdentity | null {
    const viaKey = app.verifier.verify(c.req.header("authorization"), c.req.header("x-api-key"));
    return viaKey ?? sessions.verifyCookie(c.req.header("cookie"));
  }
  return {
    sessions,
    clientOf,
    requireClient(c) {
      const client = clientOf(c);
      if (!client) {
        throw new GatewayError({
          message:
            "a valid client key is required (Authorization: Bearer, x-api-key, or the status page's session cookie)",
          code: "invalid_api_key",
        });
      }
      return client;
    },
  };
}
