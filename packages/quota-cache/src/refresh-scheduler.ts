import type { CooldownBook } from "./cooldown-book";
import { assertNumberOption } from "./errors";
import type { QuotaCache } from "./quota-cache";

/** Options of {@link createRefreshScheduler}. Durations in milliseconds. */
export interface RefreshSchedulerOptions {
  /** Decides which connections are due (`needsRefresh`). */
  cache: Pick<QuotaCache, "needsRefresh">;
  /** A connection in an account-wide cooldown is never refreshed (pitfall 17). */
  cooldowns?: Pick<CooldownBook, "isCoolingDown">;
  /** Polls the connection's usage endpoint and feeds the cache; may reject. */
  refresh: (connectionId: string) => Promise<void>;
  /** Most refreshes running at once. Default 2. */
  concurrency?: number;
  /** Each refresh starts after a random delay in [0, jitterMs). Default 2 000. */
  jitterMs?: number;
  /** A connection is refreshed at most once per this interval, failures included. Default 60 000. */
  minIntervalMs?: number;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Waits for a delay; injected by tests. Default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/** What became of one refresh request. */
export interface RefreshOutcome {
  connectionId: string;
  status: "refreshed" | "failed" | "skipped";
  /** Why a refresh was skipped. */
  reason?: "cooling-down" | "min-interval";
  /** The refresh function's error, for `failed`. */
  error?: unknown;
}

/** Runs usage-endpoint refreshes: single-flight per connection, capped, jittered, throttled. */
export interface RefreshScheduler {
  /**
   * Refreshes one connection, or returns the refresh already in flight for it. Skips a
   * connection in cooldown or refreshed less than `minIntervalMs` ago. Never rejects.
   */
  refresh(connectionId: string): Promise<RefreshOutcome>;
  /** Refreshes every connection `cache.needsRefresh(connectionIds)` lists. Never rejects. */
  refreshDue(connectionIds?: readonly string[]): Promise<RefreshOutcome[]>;
  /** Connection ids with a refresh in flight (queued or running). */
  inFlight(): string[];
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the refresh scheduler for the gateway's usage pollers. */
export function createRefreshScheduler(options: RefreshSchedulerOptions): RefreshScheduler {
  const concurrency = options.concurrency ?? 2;
  const jitterMs = options.jitterMs ?? 2_000;
  const minIntervalMs = options.minIntervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  assertNumberOption("concurrency", concurrency, 1, 1_000);
  assertNumberOption("jitterMs", jitterMs, 0, Number.MAX_SAFE_INTEGER);
  assertNumberOption("minIntervalMs", minIntervalMs, 0, Number.MAX_SAFE_INTEGER);

  const inFlight = new Map<string, Promise<RefreshOutcome>>();
  const lastStartedMs = new Map<string, number>();
  const waiting: (() => void)[] = [];
  let running = 0;

  async function acquire(): Promise<void> {
    if (running < concurrency) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  async function run(connectionId: string): Promise<RefreshOutcome> {
    const delayMs = jitterMs > 0 ? Math.floor(random() * jitterMs) : 0;
    if (delayMs > 0) await sleep(delayMs);
    await acquire();
    try {
      // The connection may have entered a cooldown while this refresh waited.
      if (options.cooldowns?.isCoolingDown(connectionId)) {
        return { connectionId, status: "skipped", reason: "cooling-down" };
      }
      await options.refresh(connectionId);
      return { connectionId, status: "refreshed" };
    } catch (error) {
      return { connectionId, status: "failed", error };
    } finally {
      release();
    }
  }

  function refresh(connectionId: string): Promise<RefreshOutcome> {
    const current = inFlight.get(connectionId);
    if (current) return current;
    if (options.cooldowns?.isCoolingDown(connectionId)) {
      return Promise.resolve({ connectionId, status: "skipped", reason: "cooling-down" });
    }
    const nowMs = now();
    const last = lastStartedMs.get(connectionId);
    if (last !== undefined && nowMs - last < minIntervalMs) {
      return Promise.resolve({ connectionId, status: "skipped", reason: "min-interval" });
    }
    lastStartedMs.set(connectionId, nowMs);
    const promise = run(connectionId).finally(() => inFlight.delete(connectionId));
    inFlight.set(connectionId, promise);
    return promise;
  }

  async function refreshDue(connectionIds?: readonly string[]): Promise<RefreshOutcome[]> {
    return Promise.all(options.cache.needsRefresh(connectionIds).map(refresh));
  }

  return { refresh, refreshDue, inFlight: () => [...inFlight.keys()] };
}
