import type { GatewayConfig } from "../config/schema";
import { createRedisHistoryStore } from "./history-redis";
import { createSqliteHistoryStore } from "./history-sqlite";
import { createMemoryHistoryStore, type StatusHistoryStore } from "./history-store";

/**
 * The history store of the gateway's configured storage: a table in the SQLite state file,
 * Redis keys under `storage.keyPrefix` + `status`, or memory.
 */
export function historyStoreFor(storage: GatewayConfig["storage"]): StatusHistoryStore {
  if (storage.driver === "memory") return createMemoryHistoryStore();
  if (storage.driver === "redis") {
    return createRedisHistoryStore({
      url: storage.url,
      keyPrefix: `${storage.keyPrefix}status`,
    });
  }
  return createSqliteHistoryStore({ path: storage.path });
}
