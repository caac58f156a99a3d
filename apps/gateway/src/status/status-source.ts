import type { GatewayDeps } from "../deps";
import type { Dispatcher } from "../dispatch/dispatcher";
import type { RoutingTable } from "../routing/routing-table";

/**
 * What the status reads of a running app: its deps, routing table and dispatcher. An
 * `AppContext` satisfies it; declared here so `status/` does not import `app/`.
 */
export interface StatusSource {
  readonly deps: GatewayDeps;
  readonly table: RoutingTable;
  readonly dispatcher: Pick<Dispatcher, "ladderOptions" | "live" | "waiting">;
}
