import type {
  Cooldown,
  KnownReset,
  OverageObservation,
  ProbeLease,
  QuotaState,
  QuotaWindow,
  RefreshScheduler,
  SessionBook,
  UpstreamFailure,
} from "@planfirst/quota-cache";
import type { SpendLedger } from "@planfirst/spend-ledger";
import type { Logger } from "pino";
import type { ReloadOutcome } from "./config/reload-outcome";
import type { GatewayConfig } from "./config/schema";
import type { ResolvedSecrets } from "./config/secrets";
import type { UpstreamConnector } from "./connectors/connector";
import type { GatewayMetrics } from "./observability/metrics";
import type { UpstreamClient } from "./upstream";

/** The quota-cache calls the gateway makes (a `createQuotaCache` result satisfies it). */
export interface GatewayQuotaCache {
  observe(connectionId: string, windows: QuotaWindow[]): unknown;
  observeFailure(
    connectionId: string,
    failure: UpstreamFailure,
    options?: { model?: string },
  ): unknown;
  get(provider: string, connectionId: string, model?: string): QuotaState | undefined;
  /** Live overage evidence (ladder.md §14): stored per connection, read by the ladder (E3). */
  observeEvidence(connectionId: string, observation: OverageObservation): unknown;
  overageEvidence(connectionId: string): OverageObservation[];
  /** P3: a hard-stop plan answered 2xx with no quota reading. */
  recordServed(connectionId: string, model?: string): unknown;
  /** P1: the probe lease of a connection (single-flight, across replicas on Redis). */
  tryAcquireProbe(connectionId: string, ttlMs: number): Promise<ProbeLease | null>;
  isProbeInFlight(connectionId: string): boolean;
  /** S2a: every live window's reset, soonest first. */
  knownResets(connectionIds?: readonly string[]): KnownReset[];
}

/** The cooldown-book calls the gateway makes (a `createCooldownBook` result satisfies it). */
export interface GatewayCooldowns {
  fail(connectionId: string, failure: UpstreamFailure, options?: { model?: string }): unknown;
  succeed(connectionId: string, options?: { model?: string }): unknown;
  isCoolingDown(connectionId: string, model?: string): boolean;
  cooldownUntil(connectionId: string, model?: string): number | string | null | undefined;
  /** Every cooldown in force on the connection, whatever its scope (model or account). */
  activeCooldowns(connectionId: string): readonly Cooldown[];
}

/**
 * The session-book calls the gateway makes (a `createSessionBook` result satisfies it): the pin
 * of a session, written after a served answer, read synchronously before dispatch.
 */
export type GatewaySessions = Pick<SessionBook, "enabled" | "pinOf" | "pin" | "liveSessions">;

/** The spend-ledger calls the gateway makes. */
export type GatewayLedger = Pick<
  SpendLedger,
  | "reserve"
  | "settle"
  | "release"
  | "spentUsd"
  | "reservedUsd"
  | "budgetUsd"
  | "rungSpendUsd"
  | "currentWindowKey"
  | "isScopeExhausted"
  | "summary"
>;

/**
 * Everything `createApp` needs, injected: the validated config and the secrets read from the
 * environment, live stores, the upstream client, the clock, the logger and the metrics.
 */
export interface GatewayDeps {
  config: GatewayConfig;
  secrets: ResolvedSecrets;
  quotaCache: GatewayQuotaCache;
  cooldowns: GatewayCooldowns;
  ledger: GatewayLedger;
  upstream: UpstreamClient;
  /** Clock, epoch milliseconds. */
  now: () => number;
  logger: Logger;
  metrics: GatewayMetrics;
  /**
   * Connection id → its plan connector (auth, URL, usage, error codes). `createGateway` builds
   * them over the store's credential persistence; when absent, `buildGatewayApp` builds them
   * from `secrets.specs` with tokens kept in memory.
   */
  connectors?: ReadonlyMap<string, UpstreamConnector>;
  /** On-request and at-reset refreshes of plan readings (S2a), set by `createGateway`. */
  planRefresh?: PlanRefresh;
  /**
   * Session pins (ladder.md §16), in the store `storage` chose; `createGateway` builds them.
   * When absent, `buildGatewayApp` keeps them in memory.
   */
  sessions?: GatewaySessions;
  /**
   * Re-reads the config file and serves the next requests on it (`Gateway.reload`), for
   * `POST /v1/admin/reload`; absent where nothing can be reloaded (an app built from deps alone).
   */
  reload?: () => Promise<ReloadOutcome>;
}

/**
 * The on-request and at-reset refreshes of plan readings (ladder.md S2a), through the refresh
 * scheduler once the gateway attaches it: single-flight per connection, never during a cooldown
 * and never more often than the scheduler's minimum interval (it skips those itself).
 */
export interface PlanRefresh {
  /**
   * Asks for a fresh reading of a connection with a usage endpoint (no await, never throws); one
   * without an endpoint is refreshed by a probe instead (ladder.md §15), so nothing is done for it.
   */
  request(connectionId: string): void;
  /** True while a refresh of the connection is queued or running (S2b: `Retry-After: 1`). */
  isPending(connectionId: string): boolean;
  /** True when the connection has a usage endpoint the scheduler polls. */
  hasUsageEndpoint(connectionId: string): boolean;
  /** Connects the scheduler and the ids it polls; until then `request` does nothing. */
  attach(
    scheduler: Pick<RefreshScheduler, "refresh" | "inFlight">,
    polled: readonly string[],
  ): void;
}
