import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  createCooldownBook,
  createRefreshScheduler,
  type RefreshOutcome,
} from "@planfirst/quota-cache";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { AppContext, GatewayEnv } from "./app/app-context";
import { createStores } from "./app/create-stores";
import { startSpendHistoryPruning } from "./app/spend-history";
import { registerStateGauges } from "./app/state-gauges";
import { keylessListenProblem } from "./config/listen-address";
import { parseConfigText, readConfigText } from "./config/load-config";
import { connectionChanges, type ReloadOutcome, whatFailed } from "./config/reload-outcome";
import { restartOnlyChanges } from "./config/restart-only";
import type { GatewayConfig } from "./config/schema";
import type { GatewayEnv as SecretEnv } from "./config/secrets";
import { watchConfigFile } from "./config/watch-config-file";
import type { OnboardingPoll } from "./connectors/connector-spec";
import { credentialPersistenceFor } from "./connectors/credential-persistence-for";
import type { GatewayDeps } from "./deps";
import { ConnectionSlots } from "./dispatch/connection-slots";
import { keyLimiterFor } from "./dispatch/key-limits-redis";
import type { GatewayProblem } from "./errors";
import { buildGeneration, type Generation, type SharedParts } from "./generation";
import type { NodeListener } from "./http/node-listener";
import { createLogger } from "./observability/logger";
import { createMetrics } from "./observability/metrics";
import { createRequestLog } from "./observability/request-log/request-log";
import { requestLogStoreFor } from "./observability/request-log/request-log-store-for";
import { historyStoreFor } from "./status/history-store-for";
import { statusLevels } from "./status/status-levels";
import { createStatusTracker } from "./status/status-tracker";
import { createUpstreamClient } from "./upstream";

/** Options of `createGateway`. */
export interface CreateGatewayOptions {
  /** The validated configuration (`parseConfig` / `loadConfigFile`). */
  config: GatewayConfig;
  /** Where `env:NAME` references are read; usually `process.env`. */
  env: SecretEnv;
  /**
   * The file `config` was read from: `reload()` re-reads it, and `server.reloadOnChange`
   * watches it. Without it, only a configuration handed to `reload(config)` can be applied.
   */
  configPath?: string;
  /**
   * The address the server listens on (default `config.server.host`): a reload that would
   * leave a non-loopback address without client keys is refused, as such a start is.
   */
  listenHost?: string;
  /**
   * The port the server listens on (default `config.server.port`): the default spend journal
   * file of driver `redis` is named after it.
   */
  listenPort?: number;
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
  /**
   * How a plan login's account setup is polled (Code Assist onboarding of a login that never
   * set it up). Default every 5 000 ms, at most 12 times.
   */
  onboardingPoll?: OnboardingPoll;
  /**
   * Quiet time after the last change to the config file before it is re-read, in ms, when
   * `server.reloadOnChange` is on. Default 250.
   */
  reloadDebounceMs?: number;
}

/**
 * A running gateway's parts, `reload()` and `close()`. `app`, `context`, `deps` and `warnings`
 * are those of the configuration served now: a reload replaces them, so read them where they
 * are used rather than keeping them.
 */
export interface Gateway {
  readonly app: Hono<GatewayEnv>;
  readonly context: AppContext;
  readonly deps: GatewayDeps;
  /**
   * Warnings of the configuration served (connections disabled because their credential is
   * unset, …).
   */
  readonly warnings: readonly string[];
  /**
   * The Node `request` listener to serve with (`http.createServer(gateway.listener)`): each
   * request is answered, to the end of its stream, by the configuration served when it arrived.
   */
  readonly listener: NodeListener;
  /** Resolves once the stores have loaded their state (Redis: subscribed and mirrored). */
  ready(): Promise<void>;
  /**
   * Polls now every usage endpoint whose reading is missing, expired or past its reset, and
   * resolves with one outcome per connection it considered (refreshed, failed, or skipped with
   * the reason). Never rejects.
   */
  refreshUsage(): Promise<RefreshOutcome[]>;
  /**
   * Applies a new configuration: `config` if given, else the config file re-read. A valid one
   * that changes no restart-only setting (`RESTART_ONLY_SETTINGS`) serves the next request;
   * requests in flight finish on the old one; quota readings, cooldowns, evidence, spend and
   * tokens of connections that stay are kept (they live in the shared stores). Anything else
   * changes nothing, and the outcome names every problem's path and reason; it is logged either
   * way. Reloads run one at a time. Never rejects.
   */
  reload(config?: GatewayConfig): Promise<ReloadOutcome>;
  /**
   * Stops pollers and the file watch, closes the upstream pool, flushes the spend ledger and
   * closes the stores.
   */
  close(): Promise<void>;
}

/**
 * Builds everything a gateway needs from its config: secrets from `env` (a connection whose
 * credential is unset is disabled with a warning, never a crash), one store choice for quota
 * state, cooldowns, session pins and spend (`storage.driver`: sqlite (default, a file under `.planfirst/`),
 * memory, redis), the upstream client, metrics, logger, and the usage pollers. What holds state
 * is built once and shared; what is built from the config is one generation, replaced whole by
 * each reload (see `buildGeneration`).
 */
export function createGateway(options: CreateGatewayOptions): Gateway {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger({ level: options.config.server.logLevel });
  const configPath = options.configPath === undefined ? undefined : resolve(options.configPath);
  const listenHost = options.listenHost ?? options.config.server.host;
  const storeLogger = { warn: (obj: unknown, msg?: string) => logger.warn(obj as object, msg) };
  const stores = createStores(
    options.config,
    options.listenPort ?? options.config.server.port,
    storeLogger,
  );
  const spendHistory = startSpendHistoryPruning({
    store: stores.spend,
    maxAgeDays: options.config.storage.spendMaxAgeDays,
    now,
    logger,
  });
  const credentialStore = credentialPersistenceFor(options.config.storage);
  const cooldowns = createCooldownBook({ store: stores.quota, now });
  const upstream = createUpstreamClient();
  const metrics = createMetrics();
  const statusTracker = createStatusTracker({
    store: historyStoreFor(options.config.storage),
    now,
    onError: (error) => logger.warn({ err: error }, "status history write failed"),
  });
  // The log keeps its queue and its store across reloads: `server.requestLog` is restart-only.
  const logSettings = options.config.server.requestLog;
  const requestLog = createRequestLog({
    store: logSettings.enabled
      ? requestLogStoreFor(options.config.storage, logSettings.maxRecords)
      : null,
    now,
    maxRecords: logSettings.maxRecords,
    maxAgeDays: logSettings.maxAgeDays,
    onDropped: (count) => metrics.countRequestLogDropped(count),
    onError: (error) => logger.warn({ err: error }, "request log write failed"),
  });
  // Shared across generations, so a reload never re-polls a connection polled a moment ago.
  const scheduler = createRefreshScheduler({
    cache: { needsRefresh: (ids) => current.quotaCache.needsRefresh(ids) },
    cooldowns,
    now,
    jitterMs: options.usagePollJitterMs ?? 2_000,
    refresh: (connectionId) => current.pollUsage(connectionId),
  });
  const shared: SharedParts = {
    env: options.env,
    now,
    logger,
    metrics,
    upstream,
    quotaStore: stores.quota,
    spendStore: stores.spend,
    cooldowns,
    credentialStore,
    ...(options.onboardingPoll ? { onboardingPoll: options.onboardingPoll } : {}),
    statusTracker,
    requestLog,
    keyLimiter: keyLimiterFor(options.config.storage, now, logger),
    scheduler,
    // Configured by each generation as it starts (`Generation.start`).
    slots: new ConnectionSlots([], (connection, outcome) =>
      metrics.countLocalCapacity(connection, outcome),
    ),
    resetTimers: options.resetTimers !== false,
    reload: () => reload(),
  };

  let current: Generation = buildGeneration(1, options.config, shared);
  for (const warning of current.warnings) logger.warn(warning);
  current.start();
  registerStateGauges(metrics, () => current.context);
  statusTracker.start(() => statusLevels(current.context));
  const retiring = new Set<Generation>();

  const poll = async (): Promise<RefreshOutcome[]> => {
    const polled = current.polled;
    if (polled.length === 0) return [];
    const outcomes = await scheduler.refreshDue(polled);
    for (const outcome of outcomes) {
      if (outcome.status === "failed") {
        logger.warn(
          { connection: outcome.connectionId, error: String(outcome.error) },
          "usage poll failed",
        );
      } else if (outcome.status === "refreshed") {
        current.context.dispatcher.waiting.wake(outcome.connectionId);
      }
    }
    return outcomes;
  };
  const pollUsage = options.pollUsage !== false;
  let timer: NodeJS.Timeout | undefined;
  if (pollUsage) {
    void poll();
    timer = setInterval(() => void poll(), options.pollCheckIntervalMs ?? 15_000);
    timer.unref();
  }

  // The text last read from the file, so a watch event that changed nothing reloads nothing.
  let lastText: string | undefined;
  let watch: { close(): void } | undefined;
  const followFile = (on: boolean) => {
    if (on && !watch && configPath) {
      watch = watchConfigFile(configPath, () => void reloadIfChanged(configPath), {
        debounceMs: options.reloadDebounceMs,
        onError: (error) =>
          logger.warn({ err: error, file: configPath }, "watching the config file stopped"),
      });
    } else if (!on && watch) {
      watch.close();
      watch = undefined;
    }
  };
  followFile(options.config.server.reloadOnChange);

  let queue: Promise<unknown> = Promise.resolve();
  function enqueue<T>(work: () => T): Promise<T> {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  }
  const reload = (given?: GatewayConfig) => enqueue(() => reloadNow(given));
  const reloadIfChanged = (path: string) =>
    enqueue(() => {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        // Between an editor's delete and its write the file is briefly gone: the write that
        // follows is a change of its own.
        return;
      }
      if (text !== lastText) reloadNow(undefined, text);
    });

  function reloadNow(given?: GatewayConfig, fileText?: string): ReloadOutcome {
    const file = given ? null : (configPath ?? null);
    const refused = (message: string, problems: GatewayProblem[]): ReloadOutcome => {
      logger.error({ file, problems }, `configuration not reloaded: ${message}`);
      return { reloaded: false, generation: current.number, file, message, problems };
    };
    let next: GatewayConfig;
    try {
      if (given) {
        next = given;
      } else if (configPath) {
        const text = fileText ?? readConfigText(configPath);
        lastText = text;
        next = parseConfigText(text, configPath);
      } else {
        return refused(
          "this gateway was not started from a config file: there is nothing to re-read",
          [],
        );
      }
    } catch (error) {
      return refused(...whatFailed(error));
    }
    const problems = restartOnlyChanges(current.config, next);
    const keyless = keylessListenProblem(listenHost, next);
    if (keyless) problems.push(keyless);
    if (problems.length > 0) {
      return refused(`configuration${file ? ` in ${file}` : ""} not applied`, problems);
    }
    let generation: Generation;
    try {
      generation = buildGeneration(current.number + 1, next, shared, current);
    } catch (error) {
      return refused(...whatFailed(error));
    }
    const previous = current;
    current = generation;
    generation.start();
    retiring.add(previous);
    void previous.retire().then(() => {
      retiring.delete(previous);
      logger.debug({ generation: previous.number }, "configuration generation drained");
    });
    if (next.server.logLevel !== previous.config.server.logLevel) {
      logger.level = next.server.logLevel;
    }
    followFile(next.server.reloadOnChange);
    if (pollUsage) void poll();
    const connections = connectionChanges(previous.config, next);
    for (const warning of generation.warnings) logger.warn(warning);
    logger.info({ file, generation: generation.number, ...connections }, "configuration reloaded");
    return {
      reloaded: true,
      generation: generation.number,
      file,
      connections,
      warnings: generation.warnings,
    };
  }

  return {
    get app() {
      return current.app;
    },
    get context() {
      return current.context;
    },
    get deps() {
      return current.deps;
    },
    get warnings() {
      return current.warnings;
    },
    listener: (incoming, outgoing) => current.serve(incoming, outgoing),
    async ready() {
      await Promise.all([stores.quota.ready(), stores.spend.ready()]);
    },
    refreshUsage: poll,
    reload: (config) => reload(config),
    async close() {
      if (timer) clearInterval(timer);
      followFile(false);
      // Held requests get the answer they would have had without waiting, before the stores go.
      for (const generation of [current, ...retiring])
        generation.context.dispatcher.waiting.close();
      for (const generation of [current, ...retiring]) void generation.retire();
      upstream.close();
      // Settles run off the response path: every one accepted so far is made durable before
      // the stores close. One that cannot be leaves its reservation to expire (over-counts).
      await current.ledger.flush().catch((error: unknown) => {
        logger.error({ err: error }, "flushing the spend ledger at close failed");
      });
      await spendHistory.stop();
      await Promise.allSettled([
        statusTracker.close(),
        requestLog.close(),
        stores.quota.close(),
        stores.spend.close?.(),
        credentialStore.close(),
        shared.keyLimiter.close(),
      ]);
    },
  };
}
