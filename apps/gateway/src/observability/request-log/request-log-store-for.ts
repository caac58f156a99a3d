import type { GatewayConfig } from "../../config/schema";
import { createRedisRequestLogStore } from "./request-log-redis";
import { createSqliteRequestLogStore, requestLogPathFor } from "./request-log-sqlite";
import { createMemoryRequestLogStore, type RequestLogStore } from "./request-log-store";

/**
 * The request log store of the gateway's configured storage: a SQLite file beside the state
 * file (`requestLogPathFor`), a Redis stream at `storage.keyPrefix` + `requests` shared by the
 * replicas, or a ring in memory.
 */
export function requestLogStoreFor(
  storage: GatewayConfig["storage"],
  maxRecords: number,
): RequestLogStore {
  if (storage.driver === "memory" || (storage.driver === "sqlite" && storage.path === ":memory:")) {
    return createMemoryRequestLogStore({ maxRecords });
  }
  if (storage.driver === "redis") {
    return createRedisRequestLogStore({
      url: storage.url,
      key: `${storage.keyPrefix}requests`,
      maxRecords,
    });
  }
  return createSqliteRequestLogStore({ path: requestLogPathFor(storage.path) });
}
