import { randomUUID } from "node:crypto";
import type { GatewayConfig } from "../config/schema";
import { createLazyRedis } from "../redis-client";
import type { ClientIdentity, ClientKeyLimits } from "../routing/client-identity";
import {
  concurrencyLimited,
  createKeyLimiter,
  createProcessKeyLimiter,
  type KeyLimiter,
  RATE_WINDOW_MS,
  startsLimited,
} from "./key-limits";

/**
 * How long a request's concurrency slot stays held in Redis without a renewal. A replica that
 * dies without giving its slots back (SIGKILL, a lost host) holds them no longer than this.
 */
export const LEASE_MS = 30_000;

/** How often a replica renews the slots of its requests in flight (a long stream's included). */
const RENEW_EVERY_MS = 10_000;

/** Longest a request waits for Redis before its key is counted by this process alone. */
const ANSWER_WITHIN_MS = 250;

/**
 * Admits one request of a key, atomically. KEYS[1]: the key's recent starts (a sorted set of
 * request ids scored by start ms), KEYS[2]: its slots in flight (request ids scored by the ms at
 * which their lease lapses). ARGV: now ms, requestsPerMinute (0: none), maxConcurrent (0: none),
 * the request's id, the lease's end ms, the rate window ms, the lease ms.
 * Answers {0} admitted, {1, held} over maxConcurrent, {2, free-at ms} over requestsPerMinute.
 * A request refused for either limit is not counted as a start, as in one process.
 */
const ADMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local perMinute = tonumber(ARGV[2])
local maxConcurrent = tonumber(ARGV[3])
local window = tonumber(ARGV[6])
if maxConcurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local held = redis.call('ZCARD', KEYS[2])
  if held >= maxConcurrent then return {1, tostring(held)} end
end
if perMinute > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  local started = redis.call('ZCARD', KEYS[1])
  if started >= perMinute then
    local oldest = redis.call('ZRANGE', KEYS[1], started - perMinute, started - perMinute, 'WITHSCORES')
    return {2, tostring(tonumber(oldest[2]) + window)}
  end
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
end
if maxConcurrent > 0 then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
return {0}
`;

type AdmitReply = [number, string?];
type AdmitCommand = (...args: Array<string | number>) => Promise<AdmitReply>;
const admitCommand = "planfirstKeyAdmit";

/** Options of {@link createRedisKeyLimiter}. */
export interface RedisKeyLimiterOptions {
  url: string;
  /** The gateway's `storage.keyPrefix`: the counts live under `<prefix>key-limits:<key id>`. */
  keyPrefix: string;
  /** The gateway's clock (epoch ms): starts and leases are counted on it. */
  now: () => number;
  /** How often this replica renews its slots in flight, ms of real time; default 10 s. */
  renewEveryMs?: number;
  logger: {
    warn(obj: object, msg: string): void;
    info(obj: object, msg: string): void;
  };
}

/**
 * Client key limits shared by every replica on one Redis: a key's starts in the last 60 s and
 * its requests in flight are counted in Redis by one script per request of a limited key, so N
 * replicas admit what one gateway would. A slot in flight is a lease that this replica renews
 * while the request runs and removes when it ends; one a dead replica leaves lapses after
 * {@link LEASE_MS}.
 *
 * When Redis does not answer (down, or slower than 250 ms), the request is counted by this
 * process alone, as without Redis, and a warning is logged once per outage: a limit is never a
 * reason to refuse a request the gateway could serve, and no money rides on it (a key's budget is
 * the spend ledger's, which refuses in an outage). Once Redis answers again, the starts and the
 * requests in flight this replica admitted alone are added to the shared counts. A slot taken in
 * Redis and not given back there (an outage at its end) is held until its lease lapses.
 */
export function createRedisKeyLimiter(options: RedisKeyLimiterOptions): KeyLimiter {
  const { now, logger } = options;
  const redis = createLazyRedis(options.url, {
    maxRetriesPerRequest: 0,
    failFastMs: ANSWER_WITHIN_MS,
  });
  const { client } = redis;
  client.defineCommand(admitCommand, { numberOfKeys: 2, lua: ADMIT_SCRIPT });
  const admitInRedis = (client as unknown as Record<string, AdmitCommand>)[admitCommand]!;
  const local = createProcessKeyLimiter(now);
  /** This replica's slots held in Redis: request id → the key's slots set. */
  const leases = new Map<string, string>();
  let degraded = false;

  const keysOf = (keyId: string) => {
    // One hash slot for both keys of a client key, so the script may touch both on a cluster.
    const base = `{${options.keyPrefix}key-limits:${keyId}}`;
    return { starts: `${base}:starts`, slots: `${base}:slots` };
  };

  const renew = () => {
    if (leases.size === 0 || client.status !== "ready") return;
    const until = now() + LEASE_MS;
    const pipeline = client.pipeline();
    for (const [id, slots] of leases) {
      pipeline.zadd(slots, "XX", until, id);
      pipeline.pexpire(slots, LEASE_MS);
    }
    pipeline.exec().catch(() => undefined);
  };
  const renewal = setInterval(renew, options.renewEveryMs ?? RENEW_EVERY_MS);
  renewal.unref();

  /**
   * What this replica admitted alone while Redis did not answer, to be added there once it
   * answers again: the starts of rate-limited keys (starts set → [start ms, request id]) and the
   * requests of concurrency-limited keys still in flight (request id → slots set).
   */
  const unsharedStarts = new Map<string, Array<[number, string]>>();
  const unsharedSlots = new Map<string, string>();

  /**
   * Adds what this replica admitted alone to the counts in Redis: its starts of the last 60 s,
   * and its requests still in flight as slots it renews and gives back like any other. Sent
   * before any later command on the connection, so the next admission in Redis counts them;
   * without it, every replica could admit a key's full rate again once Redis answered. Best
   * effort: should Redis fail again before it answers, those counts stay this replica's.
   */
  const shareUnshared = () => {
    if (unsharedStarts.size === 0 && unsharedSlots.size === 0) return;
    const nowMs = now();
    const pipeline = client.pipeline();
    for (const [startsKey, starts] of unsharedStarts) {
      const recent = starts.filter(([startMs]) => startMs > nowMs - RATE_WINDOW_MS);
      if (recent.length === 0) continue;
      pipeline.zadd(startsKey, ...recent.flat());
      pipeline.pexpire(startsKey, RATE_WINDOW_MS);
    }
    for (const [id, slots] of unsharedSlots) {
      pipeline.zadd(slots, nowMs + LEASE_MS, id);
      pipeline.pexpire(slots, LEASE_MS);
      leases.set(id, slots);
    }
    unsharedStarts.clear();
    unsharedSlots.clear();
    pipeline.exec().catch(() => undefined);
  };
  client.on("ready", shareUnshared);

  const fallBack = (identity: ClientIdentity, limits: ClientKeyLimits, error: unknown) => {
    if (!degraded) {
      degraded = true;
      logger.warn(
        { err: error },
        "client key limits: Redis did not answer, each replica counts its own requests until it does",
      );
    }
    const giveBackLocal = local.admit(identity, limits);
    const id = randomUUID();
    const keys = keysOf(identity.id);
    if (limits.requestsPerMinute !== null) {
      const nowMs = now();
      const starts = unsharedStarts.get(keys.starts) ?? [];
      // The local count admits at most the key's rate in any 60 s; what left them is dropped.
      while (starts.length > 0 && starts[0]![0] <= nowMs - RATE_WINDOW_MS) starts.shift();
      starts.push([nowMs, id]);
      unsharedStarts.set(keys.starts, starts);
    }
    if (limits.maxConcurrent !== null) unsharedSlots.set(id, keys.slots);
    return () => {
      giveBackLocal();
      unsharedSlots.delete(id);
      if (leases.delete(id)) client.zrem(keys.slots, id).catch(() => undefined);
    };
  };

  return {
    async admit(identity, limits) {
      if (client.status === "wait") await redis.connected().catch(() => undefined);
      if (client.status !== "ready") {
        return fallBack(identity, limits, new Error(`Redis connection ${client.status}`));
      }
      shareUnshared();
      const id = randomUUID();
      const keys = keysOf(identity.id);
      const nowMs = now();
      let reply: AdmitReply;
      try {
        reply = await admitInRedis.call(
          client,
          keys.starts,
          keys.slots,
          nowMs,
          limits.requestsPerMinute ?? 0,
          limits.maxConcurrent ?? 0,
          id,
          nowMs + LEASE_MS,
          RATE_WINDOW_MS,
          LEASE_MS,
        );
      } catch (error) {
        return fallBack(identity, limits, error);
      }
      if (degraded) {
        degraded = false;
        logger.info({}, "client key limits: Redis answers again, limits are shared");
      }
      const [verdict, figure] = reply;
      if (verdict === 1) throw concurrencyLimited(identity.id, Number(figure));
      if (verdict === 2) {
        throw startsLimited(identity.id, limits.requestsPerMinute ?? 0, Number(figure) - nowMs);
      }
      if (limits.maxConcurrent === null) return () => {};
      leases.set(id, keys.slots);
      return () => {
        if (!leases.delete(id)) return;
        client.zrem(keys.slots, id).catch(() => undefined);
      };
    },
    async close() {
      clearInterval(renewal);
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * The key limiter of the gateway's configured storage: shared by the replicas on Redis, this
 * process's counts otherwise (a SQLite state file serves one gateway, memory one process).
 */
export function keyLimiterFor(
  storage: GatewayConfig["storage"],
  now: () => number,
  logger: RedisKeyLimiterOptions["logger"],
): KeyLimiter {
  if (storage.driver !== "redis") return createKeyLimiter(now);
  return createRedisKeyLimiter({
    url: storage.url,
    keyPrefix: storage.keyPrefix,
    now,
    logger,
  });
}
