import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import {
  consoleStoreLogger,
  createLocalLeases,
  createOutageReporter,
  createRecordMirror,
  QUOTA_STORE_BUCKETS,
  type QuotaStore,
  type QuotaStoreBucket,
  type QuotaStoreLogger,
  type QuotaStoreRecord,
  toStoreRecord,
} from "./quota-store";

/** Options of {@link createRedisQuotaStore}. */
export interface RedisQuotaStoreOptions {
  /** Redis URL, used when no `client` is given. Default `redis://127.0.0.1:6379`. Never logged. */
  url?: string;
  /**
   * An ioredis client to use instead of `url`. The store does not quit it on `close()`; it
   * opens one duplicate connection for pub/sub, which it does close.
   */
  client?: Redis;
  /** Prefix of every key and channel; replicas that share state use the same one. Default `planfirst:quota`. */
  keyPrefix?: string;
  /** Receives one warning per Redis outage. Default: stderr. */
  logger?: QuotaStoreLogger;
  /** `ready()` gives up waiting for Redis after this many ms and runs on the mirror. Default 2 000. */
  readyTimeoutMs?: number;
}

const BUCKETS = QUOTA_STORE_BUCKETS;

/** A lease call is on the request path: past this many ms it falls back to the local lease. */
const LEASE_TIMEOUT_MS = 250;

// Deletes the lease only when this holder still has it.
const RELEASE_IF_HOLDER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

// Writes the record unless the hash holds the same field with a higher rev, and announces it.
const PUT_IF_NEWER = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and tonumber(decoded.rev) and tonumber(decoded.rev) > tonumber(ARGV[3]) then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', KEYS[2], ARGV[4])
return 1
`;

const RELEASE_IF_HOLDER_COMMAND = "planfirstQuotaReleaseLease";
const PUT_IF_NEWER_COMMAND = "planfirstQuotaPutIfNewer";
type ScriptCall = (...args: string[]) => Promise<unknown>;

interface ChangeMessage {
  origin: string;
  bucket: QuotaStoreBucket;
  connectionId: string;
  key: string;
  /** Absent for a removal. */
  rev?: number;
  value?: unknown;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

async function ensureConnected(client: Redis): Promise<void> {
  if (client.status === "ready") return;
  if (client.status === "wait") {
    await client.connect();
    return;
  }
  await new Promise<void>((resolve) => client.once("ready", () => resolve()));
}

/**
 * A quota store in Redis (ioredis) for several gateway replicas sharing quota and cooldown state.
 * Reads stay synchronous: each replica keeps an in-memory mirror, loaded by `ready()` and kept
 * current through pub/sub, so a write on one replica reaches `get()` on the others within
 * milliseconds. Writes go to the mirror at once and to Redis in the background with a
 * newest-`rev`-wins script. When Redis is down the store serves and updates its mirror, logs
 * one warning, never throws; on reconnect it pushes its records and reloads.
 *
 * Layout: one hash per bucket (`<prefix>:windows`, `<prefix>:cooldowns`, `<prefix>:evidence`,
 * `<prefix>:sessions`), fields `JSON([connectionId, key])`, values `JSON({ rev, value })`;
 * changes on `<prefix>:changes`. Probe leases are plain keys `<prefix>:lease:<name>` taken with
 * `SET NX PX`, so one probe per connection is in flight across every replica.
 */
export function createRedisQuotaStore(options: RedisQuotaStoreOptions = {}): QuotaStore {
  const prefix = options.keyPrefix ?? "planfirst:quota";
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
  const outage = createOutageReporter(options.logger ?? consoleStoreLogger, "redis");
  const origin = randomUUID();
  const channel = `${prefix}:changes`;
  const hashKey = (bucket: QuotaStoreBucket) => `${prefix}:${bucket}`;
  const ownsClient = !options.client;
  const client =
    options.client ??
    new Redis(options.url ?? "redis://127.0.0.1:6379", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 250, 5_000),
    });
  // Both scripts go by SHA (EVALSHA); ioredis sends a script's text again only when Redis lost it.
  client.defineCommand(PUT_IF_NEWER_COMMAND, { numberOfKeys: 2, lua: PUT_IF_NEWER });
  client.defineCommand(RELEASE_IF_HOLDER_COMMAND, { numberOfKeys: 1, lua: RELEASE_IF_HOLDER });
  const scripts = client as unknown as Record<string, ScriptCall>;
  const subscriber = client.duplicate({ lazyConnect: true, enableOfflineQueue: true });
  const mirror = createRecordMirror();
  // Used while Redis cannot be reached: then single-flight holds per replica only.
  const localLeases = createLocalLeases();
  const leaseKey = (name: string) => `${prefix}:lease:${name}`;
  let closed = false;

  const onError = (error: unknown) => {
    if (!closed) outage.fail("connection", error);
  };
  client.on("error", onError);
  subscriber.on("error", onError);

  function applyMessage(raw: string): void {
    let message: ChangeMessage;
    try {
      message = JSON.parse(raw) as ChangeMessage;
    } catch {
      return;
    }
    if (message.origin === origin || !BUCKETS.includes(message.bucket)) return;
    if (message.rev === undefined) {
      if (typeof message.connectionId === "string" && typeof message.key === "string") {
        mirror.delete(message.bucket, message.connectionId, message.key);
      }
      return;
    }
    const record = toStoreRecord(message.connectionId, message.key, message.rev, message.value);
    if (record) mirror.apply(message.bucket, record);
  }
  subscriber.on("message", (messageChannel: string, raw: string) => {
    if (messageChannel === channel) applyMessage(raw);
  });

  function field(record: Pick<QuotaStoreRecord, "connectionId" | "key">): string {
    return JSON.stringify([record.connectionId, record.key]);
  }

  function send(bucket: QuotaStoreBucket, record: QuotaStoreRecord): Promise<unknown> {
    const message: ChangeMessage = { origin, bucket, ...record };
    return scripts[PUT_IF_NEWER_COMMAND]!.call(
      client,
      hashKey(bucket),
      channel,
      field(record),
      JSON.stringify({ rev: record.rev, value: record.value }),
      String(record.rev),
      JSON.stringify(message),
    );
  }

  function background(operation: string, work: () => Promise<unknown>): void {
    if (closed) return;
    let pending: Promise<unknown>;
    try {
      pending = work();
    } catch (error) {
      outage.fail(operation, error);
      return;
    }
    pending.then(
      () => outage.recover(),
      (error: unknown) => {
        if (!closed) outage.fail(operation, error);
      },
    );
  }

  async function load(): Promise<void> {
    for (const bucket of BUCKETS) {
      const entries = await client.hgetall(hashKey(bucket));
      for (const [rawField, rawValue] of Object.entries(entries)) {
        try {
          const [connectionId, key] = JSON.parse(rawField) as [unknown, unknown];
          const stored = JSON.parse(rawValue) as { rev?: unknown; value?: unknown };
          const record = toStoreRecord(connectionId, key, stored.rev, stored.value);
          if (record) mirror.apply(bucket, record);
        } catch {
          // A field another program wrote under our prefix: skip it.
        }
      }
    }
  }

  /** After an outage: push what this replica wrote meanwhile, then take everyone else's. */
  async function resync(): Promise<void> {
    for (const bucket of BUCKETS) {
      await Promise.all(mirror.all(bucket).map((record) => send(bucket, record)));
    }
    await load();
  }

  async function start(): Promise<void> {
    try {
      await withTimeout(
        (async () => {
          await Promise.all([ensureConnected(client), ensureConnected(subscriber)]);
          await subscriber.subscribe(channel);
          await load();
        })(),
        readyTimeoutMs,
      );
      outage.recover();
    } catch (error) {
      if (!closed) outage.fail("ready", error);
    }
    // Later reconnects: ioredis resubscribes by itself; state written meanwhile is exchanged.
    subscriber.on("ready", () => {
      if (closed) return;
      subscriber
        .subscribe(channel)
        .then(resync)
        .then(
          () => outage.recover(),
          (error: unknown) => onError(error),
        );
    });
  }

  const started = start();

  return {
    list: (bucket, connectionId) => mirror.list(bucket, connectionId),
    connectionIds: (bucket) => mirror.connectionIds(bucket),
    put(bucket, record) {
      if (!mirror.apply(bucket, record)) return false;
      background("put", () => send(bucket, record));
      return true;
    },
    remove(bucket, connectionId, key) {
      mirror.delete(bucket, connectionId, key);
      const message: ChangeMessage = { origin, bucket, connectionId, key };
      background("remove", () =>
        client
          .multi()
          .hdel(hashKey(bucket), field({ connectionId, key }))
          .publish(channel, JSON.stringify(message))
          .exec(),
      );
    },
    async acquireLease(name, holder, ttlMs, nowMs) {
      const ms = Math.max(1, Math.ceil(ttlMs));
      if (!closed && client.status === "ready") {
        try {
          const answer = await withTimeout(
            client.set(leaseKey(name), holder, "PX", ms, "NX"),
            LEASE_TIMEOUT_MS,
          );
          outage.recover();
          return answer === "OK";
        } catch (error) {
          if (!closed) outage.fail("lease", error);
        }
      }
      // A probe goes only to a hard-stop plan (P5), so a second one from another replica during
      // an outage cannot bill; it costs one request of plan quota at most.
      return localLeases.acquire(name, holder, ms, nowMs);
    },
    async releaseLease(name, holder) {
      localLeases.release(name, holder);
      if (closed || client.status !== "ready") return;
      try {
        await withTimeout(
          scripts[RELEASE_IF_HOLDER_COMMAND]!.call(client, leaseKey(name), holder),
          LEASE_TIMEOUT_MS,
        );
      } catch (error) {
        if (!closed) outage.fail("lease", error);
      }
    },
    ready: () => started,
    async close() {
      if (closed) return;
      closed = true;
      await started;
      const connections = ownsClient ? [subscriber, client] : [subscriber];
      await Promise.all(
        connections.map(async (connection) => {
          if (connection.status === "ready") {
            await connection.quit().catch(() => connection.disconnect());
          } else {
            connection.disconnect();
          }
        }),
      );
    },
  };
}
