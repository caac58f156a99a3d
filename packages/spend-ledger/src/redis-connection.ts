import { Redis } from "ioredis";

/**
 * The store's own connection to `url`. It fails fast instead of queueing: a request must not
 * stall behind an outage (and a reserve that might still run later only over-counts until it
 * expires).
 */
export function connectRedis(
  url: string,
  commandTimeoutMs: number,
  autoPipelining: boolean,
): Redis {
  return new Redis(url, {
    enableAutoPipelining: autoPipelining,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: Math.max(1000, commandTimeoutMs),
    retryStrategy: (times) => Math.min(times * 50, 500),
  });
}

/**
 * Resolves once `connection` is ready, starting it when it has not connected yet; rejects when
 * it is not ready within `timeoutMs`.
 */
export function whenConnected(connection: Redis, timeoutMs: number): Promise<void> {
  if (connection.status === "ready") return Promise.resolve();
  if (connection.status === "wait") void connection.connect().catch(() => {});
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off("ready", onReady);
      reject(new Error(`no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    connection.once("ready", onReady);
  });
}
