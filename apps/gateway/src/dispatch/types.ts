import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayReply } from "../http/reply";
import type { WireProtocol } from "../protocols";
import type { ClientIdentity } from "../routing/client-identity";
import type { PoolLiveState } from "../routing/exclusions";
import type { RoutingTable } from "../routing/routing-table";
import type { AbortSignalLike } from "../upstream";

/** One client request as the routes hand it to the dispatcher. */
export interface ClientRequest {
  /** The API the client speaks (the route it called). */
  protocol: WireProtocol;
  /** The parsed JSON body (parsed once). */
  body: Record<string, unknown>;
  modelId: string;
  stream: boolean;
  client: ClientIdentity;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignalLike | undefined;
}

/** Everything built once per app that the dispatcher reads. */
export interface Dispatcher {
  readonly table: RoutingTable;
  readonly ladderOptions: LadderOptions;
  readonly live: PoolLiveState;
  /** Routes one request: steps 2–9 of the request flow. Failures reject with `GatewayError`. */
  dispatch(request: ClientRequest): Promise<GatewayReply>;
}

/** What one attempt at one target ended with: a reply for the client, or fall through. */
export type TargetOutcome = { readonly served: GatewayReply } | { readonly served: null };

/** The fall-through outcome (shared: it carries nothing). */
export const FELL_THROUGH: TargetOutcome = { served: null };
