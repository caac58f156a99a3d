import { Redis } from "ioredis";

/**
 * A Redis client that connects on first use, for the gateway's own small stores (status history,
 * request log, stored logins). A failed connect is retried by the next call, and the client's
 * `error` events are taken here: a failure reaches the caller through the command that failed,
 * so an outage never prints ioredis's "Unhandled error event" on every reconnect attempt.
 */
export interface LazyRedis {
  readonly client: Redis;
  /** Resolves once the client is connected (at once when it already is). */
  connected(): Promise<void>;
}

/**
 * A {@link LazyRedis} on `url`. With `failFastMs`, a command is never queued while the client is
 * not connected (it fails at once) and fails after that many ms without an answer: for a caller
 * on a request's path, which must not stall behind an outage.
 */
export function createLazyRedis(
  url: string,
  options: { maxRetriesPerRequest: number; failFastMs?: number },
): LazyRedis {
  const failFast =
    options.failFastMs === undefined
      ? {}
      : {
          enableOfflineQueue: false,
          commandTimeout: options.failFastMs,
          connectTimeout: Math.max(1000, options.failFastMs),
        };
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: options.maxRetriesPerRequest,
    ...failFast,
  });
  client.on("error", () => undefined);
  let connecting: Promise<void> | undefined;
  return {
    client,
    connected() {
      if (client.status === "ready") return Promise.resolve();
      connecting ??= client.connect().catch((error: unknown) => {
        connecting = undefined;
        throw error;
      });
      return connecting;
    },
  };
}
