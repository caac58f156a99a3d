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

/** A {@link LazyRedis} on `url` (default `redis://127.0.0.1:6379`). */
export function createLazyRedis(
  url: string | undefined,
  options: { maxRetriesPerRequest: number },
): LazyRedis {
  const client = new Redis(url ?? "redis://127.0.0.1:6379", {
    lazyConnect: true,
    maxRetriesPerRequest: options.maxRetriesPerRequest,
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
