import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type CooldownBook,
  createQuotaCache,
  createSessionBook,
  type QuotaCache,
  type QuotaStore,
  type RefreshScheduler,
} from "@planfirst/quota-cache";
import { createSpendLedger, type SpendLedger, type SpendStore } from "@planfirst/spend-ledger";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { AppContext, GatewayEnv } from "./app/app-context";
import { buildGatewayApp, nodeFastPaths } from "./app/create-app";
import type { ReloadOutcome } from "./config/reload-outcome";
import type { GatewayConfig } from "./config/schema";
import { resolveSecrets, type GatewayEnv as SecretEnv } from "./config/secrets";
import type { OnboardingPoll } from "./connectors/connector-spec";
import type { CredentialPersistence } from "./connectors/credential-persistence";
import { type WiredConnectors, wireConnectors } from "./connectors/wire-connectors";
import type { GatewayDeps } from "./deps";
import type { ConnectionSlots } from "./dispatch/connection-slots";
import type { KeyLimiter } from "./dispatch/key-limits";
import { createNodeListener } from "./http/node-listener";
import type { GatewayMetrics } from "./observability/metrics";
import type { RequestLog } from "./observability/request-log/request-log";
import { startPlanRefresh } from "./pollers/start-plan-refresh";
import { createUsagePoller, polledConnectionIds } from "./pollers/usage-pollers";
import type { StatusTracker } from "./status/status-tracker";
import type { UpstreamClient } from "./upstream";

/**
 * What every generation of one gateway shares: the parts that hold state which must outlive a
 * reload (quota readings, cooldowns, evidence, session pins, spend, tokens, the status history,
 * the request log, the usage-poll schedule, the upstream sockets, the metrics), and the process-wide clock,
 * logger and environment. Everything built from the config belongs to a generation instead.
 */
export interface SharedParts {
  /** Where `env:NAME` references are read. */
  readonly env: SecretEnv;
  /** Clock, epoch milliseconds. */
  readonly now: () => number;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly upstream: UpstreamClient;
  /** Quota readings, overage evidence, probe leases, cooldowns and session pins. */
  readonly quotaStore: QuotaStore;
  readonly spendStore: SpendStore;
  readonly cooldowns: CooldownBook;
  /** Refreshed tokens of plan logins. */
  readonly credentialStore: CredentialPersistence;
  /** How a plan login's account setup is polled; default the connector's. */
  readonly onboardingPoll?: OnboardingPoll;
  readonly statusTracker: StatusTracker;
  /** One record per request, queued and written off the request path. */
  readonly requestLog: RequestLog;
  /** Requests in flight and in line per connection with `maxConcurrent`, across generations. */
  readonly slots: ConnectionSlots;
  /** Each client key's requests in flight and recent starts, against its limits. */
  readonly keyLimiter: KeyLimiter;
  /** Usage polls: single flight and minimum interval per connection, across generations. */
  readonly scheduler: Pick<RefreshScheduler, "refresh" | "inFlight">;
  /** Refresh plan readings at each known window reset (S2a). */
  readonly resetTimers: boolean;
  /** `POST /v1/admin/reload`'s action. */
  readonly reload: () => Promise<ReloadOutcome>;
}

/**
 * Everything one configuration builds: secrets, connectors, quota cache, ledger budgets,
 * routing table, dispatcher, client keys, the app with its Node listener, the usage poller and
 * the reset timers. A request is answered start to end by the generation current when it
 * arrived, so a reload never changes the rules under a request in flight.
 */
export interface Generation {
  /** 1 for the configuration the gateway started with, then one more per reload. */
  readonly number: number;
  readonly config: GatewayConfig;
  readonly deps: GatewayDeps;
  readonly context: AppContext;
  readonly app: Hono<GatewayEnv>;
  /** The quota cache over the shared store, with this configuration's ladder tuning. */
  readonly quotaCache: QuotaCache;
  /** The ledger over the shared spend store, with this configuration's budgets. */
  readonly ledger: SpendLedger;
  /** The connectors and the secrets they were built from (the next reload reuses them). */
  readonly wired: WiredConnectors;
  /** Connections with a usage endpoint to poll. */
  readonly polled: readonly string[];
  /** Connections disabled while building (credential unset, connector refused), one line each. */
  readonly warnings: readonly string[];
  /** Polls one connection's usage endpoint (the shared scheduler's refresh). */
  pollUsage(connectionId: string): Promise<void>;
  /** Answers one request; it counts as in flight until its response closes. */
  serve(incoming: IncomingMessage, outgoing: ServerResponse): void;
  /**
   * Puts the generation in service once it is the one serving: wires `deps.planRefresh` to the
   * shared scheduler and starts the reset timers. Before it, no timer of the generation runs.
   */
  start(): void;
  /**
   * Takes the generation out of service once another serves: its reset timers stop at once and
   * its status event streams end (the pages reconnect to the new one); requests in flight finish
   * on it. Resolves when the last of them has closed.
   */
  retire(): Promise<void>;
}

/**
 * Builds a generation from a validated config over the shared parts; nothing of it runs until
 * `start()`. `previous` is the generation it replaces: a connection whose connector spec is
 * unchanged keeps its connector. Throws (a `ConfigError` for a client key whose variable is
 * unset, as at start) and then leaves nothing behind.
 */
export function buildGeneration(
  number: number,
  config: GatewayConfig,
  shared: SharedParts,
  previous?: Generation,
): Generation {
  const { now, logger, metrics, upstream, cooldowns } = shared;
  const wired = wireConnectors(resolveSecrets(config, shared.env), {
    persistence: shared.credentialStore,
    now,
    onboardingPoll: shared.onboardingPoll,
    ...(previous ? { reuse: previous.wired } : {}),
  });
  const { secrets, connectors } = wired;
  // The cache keeps its readings, evidence and probe leases in the shared store; only the
  // tuning is its own, so a new cache per configuration loses nothing a request needs.
  const quotaCache = createQuotaCache({
    store: shared.quotaStore,
    now,
    ttlMs: config.subscriptionLadder.maxStateAgeMs,
    exitCutoffPercent: config.subscriptionLadder.exitCutoffPercent,
    reentryMinRemainingPercent: config.subscriptionLadder.reentryMinRemainingPercent,
    cooldowns,
  });
  // A ledger holds no spend, only budgets and a clock: over the shared store, the spend booked
  // under the previous configuration counts against the new budgets.
  const ledger = createSpendLedger({
    store: shared.spendStore,
    budgetsUsd: config.subscriptionLadder.rungBudgetUsd,
    window: config.subscriptionLadder.budgetWindow,
    timeZone: config.subscriptionLadder.budgetTimeZone,
    now,
  });
  // Session pins live in the shared store too, so a reload keeps every conversation where it
  // was; the idle time and the bound are this configuration's.
  const sessions = createSessionBook({
    store: shared.quotaStore,
    now,
    idleTtlMs: config.subscriptionLadder.sessionAffinity.idleTtlMs,
    maxEntries: config.subscriptionLadder.sessionAffinity.maxEntries,
  });
  const deps: GatewayDeps = {
    config,
    secrets,
    quotaCache,
    cooldowns,
    ledger,
    upstream,
    now,
    logger,
    metrics,
    connectors,
    sessions,
    reload: shared.reload,
  };
  const built = buildGatewayApp(deps, {
    statusTracker: shared.statusTracker,
    requestLog: shared.requestLog,
    slots: shared.slots,
    keyLimiter: shared.keyLimiter,
  });
  const { table } = built.context;
  const polled = polledConnectionIds(table.connections, connectors);
  const pollUsage = createUsagePoller({
    connections: table.connections,
    connectors,
    upstream,
    quotaCache,
    cooldowns,
    now,
    logger,
    metrics,
  });
  const listener = createNodeListener(nodeFastPaths(built.context), built.hono.fetch);
  let planRefresh: { close(): void } | undefined;

  let inFlight = 0;
  let retired = false;
  let drained: (() => void) | undefined;
  const whenDrained = new Promise<void>((resolve) => {
    drained = resolve;
  });
  // One function for every response of the generation: no closure per request.
  const leave = () => {
    inFlight--;
    if (retired && inFlight === 0) drained?.();
  };

  return {
    number,
    config,
    deps,
    context: built.context,
    app: built.hono,
    quotaCache,
    ledger,
    wired,
    polled,
    warnings: secrets.warnings,
    pollUsage,
    serve(incoming, outgoing) {
      inFlight++;
      outgoing.on("close", leave);
      listener(incoming, outgoing);
    },
    start() {
      shared.slots.configure(config.connections);
      planRefresh ??= startPlanRefresh(deps, table, shared.scheduler, polled, {
        resetTimers: shared.resetTimers,
        onPlanChange: (connectionId) => built.context.dispatcher.waiting.wake(connectionId),
      });
    },
    retire() {
      if (!retired) {
        retired = true;
        planRefresh?.close();
        built.close();
        if (inFlight === 0) drained?.();
      }
      return whenDrained;
    },
  };
}
