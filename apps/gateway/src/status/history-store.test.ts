import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deleteRedisKeys, REDIS_URL } from "../../test/harness";
import { createRedisHistoryStore } from "./history-redis";
import { createSqliteHistoryStore } from "./history-sqlite";
import {
  bucketStart,
  createMemoryHistoryStore,
  HISTORY_BUCKET_MS,
  HISTORY_RETENTION_MS,
  type StatusHistoryStore,
} from "./history-store";

const dir = mkdtempSync(join(tmpdir(), "planfirst-history-"));
const redisPrefixes: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const prefix of redisPrefixes) await deleteRedisKeys(prefix);
});
const T = bucketStart(Date.parse("2026-11-30T10:00:00Z"));

const stores: [string, () => StatusHistoryStore][] = [
  ["memory", () => createMemoryHistoryStore()],
  ["sqlite", () => createSqliteHistoryStore({ path: join(dir, `${randomUUID()}.db`) })],
  [
    "redis",
    () => {
      const keyPrefix = `planfirst-test:${randomUUID()}:status`;
      redisPrefixes.push(keyPrefix);
      return createRedisHistoryStore({ url: REDIS_URL, keyPrefix });
    },
  ],
];

describe.each(stores)("the %s history store", (_name, make) => {
  it("adds request counts from several writers, keeps the newest level, and reads a range in order", async () => {
    const store = make();
    try {
      await store.add([
        {
          startMs: T,
          requests: { subscription: 2 },
          levels: { "remaining:plan:5h": { value: 80, atMs: T + 10 } },
        },
        { startMs: T + HISTORY_BUCKET_MS, requests: { cheap: 1 }, levels: {} },
      ]);
      await store.add([
        {
          startMs: T,
          requests: { subscription: 3, cheap: 1 },
          levels: { "remaining:plan:5h": { value: 70, atMs: T + 20 } },
        },
      ]);
      const read = await store.read(T, T + 2 * HISTORY_BUCKET_MS);
      expect(read).toEqual([
        {
          startMs: T,
          requests: { subscription: 5, cheap: 1 },
          levels: { "remaining:plan:5h": { value: 70, atMs: T + 20 } },
        },
        { startMs: T + HISTORY_BUCKET_MS, requests: { cheap: 1 }, levels: {} },
      ]);
      expect(await store.read(T + HISTORY_BUCKET_MS, T + 2 * HISTORY_BUCKET_MS)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe("pruning", () => {
  it("drops SQLite buckets older than the retention and keeps them across a reopen", async () => {
    const path = join(dir, "prune.db");
    const old = T - HISTORY_RETENTION_MS - HISTORY_BUCKET_MS;
    const first = createSqliteHistoryStore({ path });
    await first.add([
      { startMs: old, requests: { cheap: 1 }, levels: {} },
      { startMs: T, requests: { cheap: 4 }, levels: {} },
    ]);
    await first.close();
    const reopened = createSqliteHistoryStore({ path });
    await reopened.prune(T - HISTORY_RETENTION_MS);
    expect(await reopened.read(0, T + HISTORY_BUCKET_MS)).toEqual([
      { startMs: T, requests: { cheap: 4 }, levels: {} },
    ]);
    await reopened.close();
  });
});
