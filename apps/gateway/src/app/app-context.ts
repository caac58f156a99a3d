import type { GatewayDeps } from "../deps";
import type { Dispatcher } from "../dispatch/dispatcher";
import type { RequestLog } from "../observability/request-log/request-log";
import type { RoutingTable } from "../routing/routing-table";
import type { StatusTracker } from "../status/status-tracker";
import type { ClientIdentity, ClientKeyVerifier } from "./auth/client-keys";

/** What every route reads: the injected deps and what `createApp` built from them once. */
export interface AppContext {
  readonly deps: GatewayDeps;
  readonly table: RoutingTable;
  readonly dispatcher: Dispatcher;
  readonly verifier: ClientKeyVerifier;
  /** Last-served rungs and the history behind the status page. */
  readonly status: StatusTracker;
  /** One record per completion request, read by `/v1/requests`, the CLI and the status page. */
  readonly requestLog: RequestLog;
  /**
   * The client headers routes keep for forwarding: `user-agent` and whatever the connections'
   * connectors forward (`clientHeaderNames`).
   */
  readonly clientHeaderNames: readonly string[];
}

/** Hono environment of the gateway: the authenticated client rides in `c.var.client`. */
export interface GatewayEnv {
  Variables: { client: ClientIdentity };
}
