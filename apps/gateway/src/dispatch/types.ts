import type { LadderOptions } from "@planfirst/subscription-ladder";
import type { GatewayReply } from "../http/reply";
import type { RequestTrace } from "../observability/request-log/request-trace";
import type { ClientProtocolName } from "../protocols";
import type { ClientIdentity } from "../routing/client-identity";
import type { PoolLiveState } from "../routing/exclusions";
import type { RoutingTable } from "../routing/routing-table";
import type { SessionKey } from "../routing/session-key";
import type { AbortSignalLike } from "../upstream";
import type { ConnectionSlots } from "./connection-slots";

/** One client request as the routes hand it to the dispatcher. */
export interface ClientRequest {
  /**
   * The protocol the client speaks (the route it called): its bodies, answers and errors, what
   * the spend ledger reads of its body; targets speaking it relay, others translate.
   */
  protocol: ClientProtocolName;
  /** The client headers forwarded upstream (see `client-headers.ts`); none when absent. */
  clientHeaders?: ClientHeaders;
  /**
   * A sub-endpoint of the route (`/compact` of `/v1/responses`, `/count_tokens` of
   * `/v1/messages`): served only by upstreams of the client's own protocol, appended to their URL.
   */
  subPath?: string;
  /**
   * The upstream bills nothing for this call (Anthropic `count_tokens`): paid rungs reserve
   * nothing for it, so it can neither be refused by a budget nor book a cost.
   */
  unbilled?: boolean;
  /**
   * The client's query parameters some wire forwards (`beta=true` from Claude Code to a Messages
   * upstream, see `WireForwarding.query`), joined by `&`, without the `?`.
   */
  query?: string;
  /** The parsed JSON body (parsed once). */
  body: Record<string, unknown>;
  modelId: string;
  stream: boolean;
  client: ClientIdentity;
  /**
   * The request's session (ladder.md §16); absent when affinity is off, for an unbilled call,
   * or when nothing in the request names or shapes a conversation.
   */
  session?: SessionKey;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignalLike | undefined;
  /**
   * The request's entry in the request log: the dispatch path records where the request went
   * and what it cost on it (and sets `sessionHash` and `waitedMs` when it knows them). Absent
   * for calls the log does not keep (`count_tokens`).
   */
  trace?: RequestTrace;
}

/** Client headers a route read for forwarding upstream, names in lower case. */
export type ClientHeaders = Readonly<Record<string, string>>;

/** Everything built once per app that the dispatcher reads. */
export interface Dispatcher {
  readonly table: RoutingTable;
  readonly ladderOptions: LadderOptions;
  readonly live: PoolLiveState;
  /** The connections' `maxConcurrent` limits, as they stand now. */
  readonly slots: ConnectionSlots;
  /** Routes one request: steps 2–9 of the request flow. Failures reject with `GatewayError`. */
  dispatch(request: ClientRequest): Promise<GatewayReply>;
}

/** What one attempt at one target ended with: a reply for the client, or fall through. */
export type TargetOutcome = { readonly served: GatewayReply } | { readonly served: null };

/** The fall-through outcome (shared: it carries nothing). */
export const FELL_THROUGH: TargetOutcome = { served: null };
