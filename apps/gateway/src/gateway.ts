import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  createCooldownBook,
  createMemoryQuotaStore,
  createQuotaCache,
  createRefreshScheduler,
  type QuotaStore,
  type RefreshOutcome,
} from "@planfirst/quota-cache";
import { createRedisQuotaStore } from "@planfirst/quota-cache/redis";
import { createSqliteQuotaStore } from "@planfirst/quota-cache/sqlite";
import {
  createMemorySpendStore,
  createSpendLedger,
  type SpendStore,
} from "@planfirst/spend-ledger";
import { createRedisSpendStore } from "@planfirst/spend-ledger/redis";
import { createSqliteSpendStore } from "@planfirst/spend-ledger/sqlite";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { AppContext, GatewayEnv } from "./app/app-context";
import { buildGatewayApp } from "./app/create-app";
import { openSpendStore } from "./app/open-spend-store";
import { registerStateGauges } from "./app/state-gauges";
import type { GatewayConfig } from "./config/schema";
import { resolveSecrets, type GatewayEnv as SecretEnv } from "./config/secrets";
import { spendJournalPath } from "./config/storage-paths";
import { credentialPersistenceFor } from "./connectors/credential-persistence-for";
import { wireConnectors } from "./connectors/wire-connectors";
import type { GatewayDeps } from "./deps";
import { createLogger } from "./observability/logger";
import { createMetrics, type GatewayMetrics } from "./observability/metrics";
import { startPlanRefresh } from "./pollers/start-plan-refresh";
import { createUsagePoller, polledConnectionIds } from "./pollers/usage-pollers";
import { statusLevels } from "./status/gateway-status";
import { historyStoreFor } from "./status/history-store-for";
import { createStatusTracker } from "./status/status-tracker";
import { createUpstreamClient } from "./upstream";

/** Options of `createGateway`. */
export interface CreateGatewayOptions {
  /** The validated configuration (`parseConfig` / `loadConfigFile`). */
  config: GatewayConfig;
  /** Where `env:NAME` references are read; usually `process.env`. */
  env: SecretEnv;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Logger; default pino on stdout at `server.logLevel`. */
  logger?: Logger;
  /** Start the usage pollers (default true): a first read at start, then as quota-cache asks. */
  pollUsage?: boolean;
  /** How often to ask the cache which connections need a fresh reading, in ms. Default 15 000. */
  pollCheckIntervalMs?: number;
  /** Random delay before each usage poll, in ms (spreads replicas). Default 2 000. */
  usagePollJitterMs?: number;
  /**
   * Refresh plan readings at each known window reset (S2a), whatever `pollUsage` says: they
   * poll only once a reset has passed, through the same scheduler. Default true.
   */
  resetTimers?: boolean;
}

/** A running gateway's parts: the Hono app, its deps, start-up warnings and `close()`. */
export interface Gateway {
  readonly app: Hono<GatewayEnv>;
  readonly context: AppContext;
  readonly deps: GatewayDeps;
  /** Warnings found at start (connections disabled because their credential is unset, …). */
  readonly warnings: readonly string[];
  /** Resolves once the stores have loaded their state (Redis: subscribed and mirrored). */
  ready(): Promise<void>;
  /**
   * Polls now every usage endpoint whose reading is missing, expired or past its reset, and
   * resolves with one outcome per connection it considered (refreshed, failed, or skipped with
   * the reason). Never rejects.
   */
  refreshUsage(): Promise<RefreshOutcome[]>;
  /** Stops pollers, closes the upstream pool, flushes the spend ledger and closes the stores. */
  close(): Promise<void>;
}

/**
 * Builds everything a gateway needs from its config: secrets from `env` (a connection whose
 * credential is unset is disabled with a warning, never a crash), one store choice for quota
 * state, cooldowns and spend (`storage.driver`: sqlite (default, a file under `.planfirst/`),
 * memory, redis), the upstream client, metrics, logger, and the usage pollers.
 */
export function createGateway(options: CreateGatewayOptions): Gateway {
  const { config } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger({ level: config.server.logLevel });
  const storeLogger = { warn: (obj: unknown, msg?: string) => logger.warn(obj as object, msg) };
  const stores = createStores(config, storeLogger);
  const credentialStore = credentialPersistenceFor(config.storage);
  const { secrets, connectors } = wireConnectors(resolveSecrets(config, options.env), {
    persistence: credentialStore,
    now,
  });
  for (const warning of secrets.warnings) logger.warn(warning);
  const cooldowns = createCooldownBook({ store: stores.quota, now });
  const quotaCache = createQuotaCache({
    store: stores.quota,
    now,
    ttlMs: config.subscriptionLadder.maxStateAgeMs,
    exitCutoffPercent: config.subscriptionLadder.exitCutoffPercent,
    reentryMinRemainingPercent: config.subscriptionLadder.reentryMinRemainingPercent,
    cooldowns,
  });
  const ledger = createSpendLedger({
    store: stores.spend,
    budgetsUsd: config.subscriptionLadder.rungBudgetUsd,
    window: config.subscriptionLadder.budgetWindow,
    timeZone: config.subscriptionLadder.budgetTimeZone,
    now,
  });
  const upstream = createUpstreamClient();
  const metrics: GatewayMetrics = createMetrics();
  const statusTracker = createStatusTracker({
    store: historyStoreFor(config.storage),
    now,
    onError: (error) => logger.warn({ err: error }, "status history write failed"),
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
  };
  const built = buildGatewayApp(deps, { statusTracker });
  registerStateGauges(built.context);
  statusTracker.start(() => statusLevels(built.context));

  let timer: NodeJS.Timeout | undefined;
  const polled = polledConnectionIds(built.context.table.connections, connectors);
  const scheduler = createRefreshScheduler({
    cache: quotaCache,
    cooldowns,
    now,
    jitterMs: options.usagePollJitterMs ?? 2_000,
    refresh: createUsagePoller({
      connections: built.context.table.connections,
      connectors,
      upstream,
      quotaCache,
      cooldowns,
      now,
      logger,
      metrics,
    }),
  });
  const planRefresh = startPlanRefresh(deps, built.context.table, scheduler, polled, {
    resetTimers: options.resetTimers !== false,
  });
  const poll = async (): Promise<RefreshOutcome[]> => {
    if (polled.length === 0) return [];
    const outcomes = await scheduler.refreshDue(polled);
    for (const outcome of outcomes) {
      if (outcome.status === "failed") {
        logger.warn(
          { connection: outcome.connectionId, error: String(outcome.error) },
          "usage poll failed",
        );
      }
    }
    return outcomes;
  };
  if (options.pollUsage !== false && polled.length > 0) {
    void poll();
    timer = setInterval(() => void poll(), options.pollCheckIntervalMs ?? 15_000);
    timer.unref();
  }

  return {
    app: built.hono,
    context: built.context,
    deps,
    warnings: secrets.warnings,
    async ready() {
      await Promise.all([stores.quota.ready(), ledger.ready()]);
    },
    refreshUsage: poll,
    async close() {
      if (timer) clearInterval(timer);
      planRefresh.close();
      upstream.close();
      // Settles run off the response path: every one accepted so far is made durable before
      // the stores close. One that cannot be leaves its reservation to expire (over-counts).
      await ledger.flush().catch((error: unknown) => {
        logger.error({ err: error }, "flushing the spend ledger at close failed");
      });
      await Promise.allSettled([
        statusTracker.close(),
        stores.quota.close(),
        stores.spend.close?.(),
        credentialStore.close(),
      ]);
    },
  };
}

function createStores(
  config: GatewayConfig,
  logger: { warn(obj: unknown, msg?: string): void },
): { quota: QuotaStore; spend: SpendStore & { close?(): Promise<void> | void } } {
  const { storage } = config;
  if (storage.driver === "memory") {
    return { quota: createMemoryQuotaStore(), spend: createMemorySpendStore() };
  }
  if (storage.driver === "redis") {
    const journalPath = spendJournalPath(config);
    return {
      quota: createRedisQuotaStore({
        url: storage.url,
        keyPrefix: `${storage.keyPrefix}quota`,
        logger,
      }),
      spend: openSpendStore("storage.journalPath", journalPath, () => {
        mkdirSync(dirname(journalPath), { recursive: true });
        return createRedisSpendStore({
          url: storage.url,
          keyPrefix: `${storage.keyPrefix}spend`,
          journalPath,
          logger,
        });
      }),
    };
  }
  mkdirSync(dirname(storage.path), { recursive: true });
  return {
    quota: createSqliteQuotaStore({ path: storage.path, logger }),
    spend: openSpendStore("storage.path", storage.path, () =>
      createSqliteSpendStore({ path: storage.path }),
    ),
  };
}
