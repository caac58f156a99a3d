import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createMemoryQuotaStore, type QuotaStore } from "@planfirst/quota-cache";
import { createRedisQuotaStore } from "@planfirst/quota-cache/redis";
import { createSqliteQuotaStore } from "@planfirst/quota-cache/sqlite";
import { createMemorySpendStore, type SpendStore } from "@planfirst/spend-ledger";
import { createRedisSpendStore } from "@planfirst/spend-ledger/redis";
import { createSqliteSpendStore } from "@planfirst/spend-ledger/sqlite";
import type { GatewayConfig } from "../config/schema";
import { spendJournalPath } from "../config/storage-paths";
import { openSpendStore } from "./open-spend-store";

/**
 * The quota and spend stores of `storage.driver`: memory; Redis, with the spend journal file
 * (`storage.journalPath`, or one named after `port`); or one SQLite file (the default). The
 * folder of each file is made first.
 */
export function createStores(
  config: GatewayConfig,
  port: number,
  logger: { warn(obj: unknown, msg?: string): void },
): { quota: QuotaStore; spend: SpendStore & { close?(): Promise<void> | void } } {
  const { storage } = config;
  if (storage.driver === "memory") {
    return { quota: createMemoryQuotaStore(), spend: createMemorySpendStore() };
  }
  if (storage.driver === "redis") {
    const journalPath = spendJournalPath(storage, port);
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
