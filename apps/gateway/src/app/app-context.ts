import type { ClientIdentity, ClientKeyVerifier } from "./auth/client-keys";
import type { GatewayDeps } from "./deps";
import type { Dispatcher } from "./dispatch/dispatch";
import type { RoutingTable } from "./dispatch/routing-table";

/** What every route reads: the injected deps and what `createApp` built from them once. */
export interface AppContext {
  readonly deps: GatewayDeps;
  readonly table: RoutingTable;
  readonly dispatcher: Dispatcher;
  readonly verifier: ClientKeyVerifier;
}

/** Hono environment of the gateway: the authenticated client rides in `c.var.client`. */
export interface GatewayEnv {
  Variables: { client: ClientIdentity };
}
