// Reserve+settle throughput and latency of each spend store. Run: pnpm --filter
// @planfirst/spend-ledger bench (REDIS_URL selects the Redis; default 127.0.0.1:6379).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchResult, measure, printTable } from "@planfirst/bench";
import { Redis } from "ioredis";
import {
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  type SpendStore,
} from "../src/index";
import { createRedisSpendStore } from "../src/redis";
import { createSqliteSpendStore } from "../src/sqlite";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const usage = { model: "gpt-4.1-mini", inputTokens: 1200, outputTokens: 300 };

/** One reserve followed by its settle, the work a gateway does per paid request. */
function reserveAndSettle(store: SpendStore) {
  // A budget large enough never to refuse, so every iteration does the full write path.
  const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1_000_000 } });
  let count = 0;
  return async () => {
    count += 1;
    const reservation = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.01,
      requestId: `bench-${count}`,
    });
    if (isRefusal(reservation)) throw new Error("the benchmark budget refused a reservation");
    await ledger.settle(reservation, 0.004321, usage);
  };
}

/** `width` reserve+settle pairs in flight at once; the result is per batch. */
function concurrent(store: SpendStore, width: number) {
  const single = reserveAndSettle(store);
  return () => Promise.all(Array.from({ length: width }, single));
}

const rows: string[][] = [];
const add = (result: BenchResult, pairsPerCall = 1) => {
  rows.push([
    result.name,
    String(result.iterations * pairsPerCall),
    Math.round(result.opsPerSec * pairsPerCall).toLocaleString("en-US"),
    result.medianMs.toFixed(3),
    result.p99Ms.toFixed(3),
  ]);
};

const dir = mkdtempSync(join(tmpdir(), "planfirst-spend-bench-"));
const keyPrefix = `planfirst-bench:${process.pid}:${Date.now()}`;
try {
  const memory = createMemorySpendStore();
  add(await measure("memory", reserveAndSettle(memory), { iterations: 20_000, warmup: 1_000 }));

  for (const synchronous of ["full", "normal"] as const) {
    const sqlite = createSqliteSpendStore({ path: join(dir, `${synchronous}.db`), synchronous });
    add(
      await measure(`sqlite (WAL, synchronous=${synchronous})`, reserveAndSettle(sqlite), {
        iterations: 2_000,
        warmup: 100,
      }),
    );
    await sqlite.close();
  }

  const redis = createRedisSpendStore({ url: redisUrl, keyPrefix });
  await redis.ready();
  add(await measure("redis", reserveAndSettle(redis), { iterations: 5_000, warmup: 200 }));
  add(
    await measure("redis, 50 in flight (latency per batch)", concurrent(redis, 50), {
      iterations: 200,
      warmup: 10,
    }),
    50,
  );
  await redis.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = new Redis(redisUrl);
  const keys = await admin.keys(`{${keyPrefix}}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
}

console.log("reserve + settle per store (one pair per op unless noted)\n");
printTable(["store", "pairs", "pairs/s", "median ms", "p99 ms"], rows);
