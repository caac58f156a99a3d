// Reserve+settle throughput and latency of each spend store, one pair at a time and with many
// pairs in flight. Run: pnpm --filter @planfirst/spend-ledger bench (REDIS_URL selects the
// Redis; default 127.0.0.1:6379). Each in-flight row is a closed loop: `width` workers each
// reserve, then settle, then start over, until `pairs` pairs are done. "reserve p50/p99" is what a
// request waits before it may call the upstream; "pair" adds the settle (which the gateway
// need not wait for; in the "settle behind" rows, as in the gateway, a worker goes on as soon as
// its settle is issued, and the run ends once every settle has landed, so there "pair" is the
// reserve plus issuing the settle). "main busy µs/pair" is the event-loop time each pair costs the main thread;
// "main cpu µs/pair" is the main thread's own CPU time per pair (Linux only), which leaves out the
// time the thread was not running, so it is the steadier figure on a shared machine.
// "redis-server µs/pair" is the Redis server's own CPU time per pair (INFO cpu), for the Redis rows.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { printTable, quantile } from "@planfirst/bench";
import { Redis } from "ioredis";
import {
  createMemorySpendStore,
  createSpendLedger,
  isRefusal,
  SpendLedgerError,
  type SpendStore,
} from "../src/index";
import { createRedisSpendStore } from "../src/redis";
import { createSqliteSpendStore } from "../src/sqlite";
import { benchStatusReads } from "./status-reads";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const usage = { model: "gpt-4.1-mini", inputTokens: 1200, outputTokens: 300 };

/**
 * Nanoseconds the main thread has run on a CPU (the first field of its schedstat; the main
 * thread's id is the process id), or null where the kernel does not say.
 */
function mainThreadCpuNs(): number | null {
  try {
    const schedstat = readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8");
    return Number(schedstat.split(" ")[0]);
  } catch {
    return null;
  }
}

interface LoopResult {
  pairs: number;
  pairsPerSec: number;
  reserveMs: number[];
  pairMs: number[];
  /** Reserves refused as store_unavailable (a reply past the command deadline). */
  unavailable: number;
  /** Time the main thread's event loop was busy, per pair, in µs: what a gateway cannot serve. */
  busyUsPerPair: number;
  /** CPU time of the main thread per pair, in µs; null where it cannot be read. */
  cpuUsPerPair: number | null;
  /** redis-server CPU time (user + system) per pair, in µs; null for the other stores. */
  redisUsPerPair: number | null;
}

/** redis-server's own CPU time so far (INFO cpu, user + system), in µs. */
async function redisCpuUs(admin: Redis): Promise<number> {
  const info = await admin.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1_000_000;
}

/**
 * `width` workers doing reserve → settle pairs until `pairs` are done (after `warmup` pairs).
 * With `settle: "behind"` a worker starts its next pair without waiting for the settle, as the
 * gateway does (its client has its answer); the run ends once every settle has landed. With
 * `redis`, the Redis server's CPU time over the run is measured too.
 */
async function closedLoop(
  store: SpendStore,
  width: number,
  pairs: number,
  warmup: number,
  { settle = "awaited", redis }: { settle?: "awaited" | "behind"; redis?: Redis } = {},
): Promise<LoopResult> {
  // A budget large enough never to refuse, so every pair does the full write path.
  const ledger = createSpendLedger({ store, budgetsUsd: { cheap: 1_000_000 } });
  await ledger.ready();
  let started = 0;
  const reserveMs: number[] = [];
  const pairMs: number[] = [];
  let unavailable = 0;
  let settleError: unknown;
  const pair = async (timed: boolean) => {
    const index = started++;
    const t0 = performance.now();
    let reservation: Awaited<ReturnType<typeof ledger.reserve>>;
    try {
      reservation = await ledger.reserve({
        rung: "cheap",
        connectionId: "openai",
        model: "gpt-4.1-mini",
        maxCostUsd: 0.01,
        requestId: `bench-${index}`,
      });
    } catch (error) {
      // A Redis reply later than the command deadline (a starved machine): counted, not fatal.
      if (!SpendLedgerError.isInstance(error) || error.code !== "store_unavailable") throw error;
      if (timed) unavailable += 1;
      return;
    }
    const t1 = performance.now();
    if (isRefusal(reservation)) throw new Error("the benchmark budget refused a reservation");
    const settled = ledger.settle(reservation, 0.004321, usage);
    if (settle === "awaited") await settled;
    else
      settled.catch((error: unknown) => {
        settleError ??= error;
      });
    if (timed) {
      reserveMs.push(t1 - t0);
      pairMs.push(performance.now() - t0);
    }
  };
  const run = async (count: number, timed: boolean) => {
    let left = count;
    const worker = async () => {
      while (left > 0) {
        left -= 1;
        await pair(timed);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  };
  await run(warmup, false);
  await ledger.flush();
  const redis0 = redis ? await redisCpuUs(redis) : null;
  const t0 = performance.now();
  const loop0 = performance.eventLoopUtilization();
  const cpu0 = mainThreadCpuNs();
  await run(pairs, true);
  await ledger.flush();
  if (settleError !== undefined) throw settleError;
  const elapsedMs = performance.now() - t0;
  const loop = performance.eventLoopUtilization(loop0);
  const cpu1 = mainThreadCpuNs();
  const redis1 = redis ? await redisCpuUs(redis) : null;
  reserveMs.sort((a, b) => a - b);
  pairMs.sort((a, b) => a - b);
  return {
    pairs,
    pairsPerSec: (pairs - unavailable) / (elapsedMs / 1000),
    reserveMs,
    pairMs,
    unavailable,
    busyUsPerPair: (loop.active * 1000) / pairs,
    cpuUsPerPair: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / 1000 / pairs,
    redisUsPerPair: redis0 === null || redis1 === null ? null : (redis1 - redis0) / pairs,
  };
}

const rows: string[][] = [];
const add = (name: string, width: number, result: LoopResult) => {
  rows.push([
    name,
    String(width),
    String(result.pairs),
    Math.round(result.pairsPerSec).toLocaleString("en-US"),
    quantile(result.reserveMs, 0.5).toFixed(3),
    quantile(result.reserveMs, 0.99).toFixed(3),
    quantile(result.pairMs, 0.5).toFixed(3),
    quantile(result.pairMs, 0.99).toFixed(3),
    result.busyUsPerPair.toFixed(1),
    result.cpuUsPerPair === null ? "-" : result.cpuUsPerPair.toFixed(1),
    result.redisUsPerPair === null ? "-" : result.redisUsPerPair.toFixed(1),
    String(result.unavailable),
  ]);
};

const dir = mkdtempSync(join(tmpdir(), "planfirst-spend-bench-"));
let printStatusReads = () => {};
const keyPrefix = `planfirst-bench:${process.pid}:${Date.now()}`;
try {
  const memory = createMemorySpendStore();
  add("memory", 1, await closedLoop(memory, 1, 20_000, 1_000));
  add("memory", 64, await closedLoop(memory, 64, 20_000, 1_000));

  // Commits on the main thread ("main", as before the commit thread) and in the worker
  // thread (the default), interleaved so both see the same machine load.
  let file = 0;
  for (const synchronous of ["full", "normal"] as const) {
    for (const width of [1, 32, 64]) {
      for (const commitThread of ["main", "worker"] as const) {
        const sqlite = createSqliteSpendStore({
          path: join(dir, `${file++}.db`),
          synchronous,
          commitThread,
        });
        const pairs = width === 1 ? 1_000 : 5_000;
        add(
          `sqlite (synchronous=${synchronous}, commit on ${commitThread})`,
          width,
          await closedLoop(sqlite, width, pairs, 100),
        );
        await sqlite.close();
      }
    }
  }
  // The gateway's pattern: the default store, 32 requests in flight, settles not waited for.
  const behind = createSqliteSpendStore({ path: join(dir, `${file++}.db`) });
  add(
    "sqlite (synchronous=full, commit on worker), settle behind",
    32,
    await closedLoop(behind, 32, 10_000, 500, { settle: "behind" }),
  );
  await behind.close();

  const redis = createRedisSpendStore({ url: redisUrl, keyPrefix });
  await redis.ready();
  const server = new Redis(redisUrl);
  add("redis", 1, await closedLoop(redis, 1, 5_000, 200, { redis: server }));
  add("redis", 50, await closedLoop(redis, 50, 10_000, 500, { redis: server }));
  add(
    "redis, settle behind",
    32,
    await closedLoop(redis, 32, 20_000, 1_000, { settle: "behind", redis: server }),
  );
  await server.quit();
  await redis.close();

  // Status reads over a long history: one store of each kind, seeded fresh.
  const readsSqlite = createSqliteSpendStore({ path: join(dir, `${file++}.db`) });
  const readsRedis = createRedisSpendStore({ url: redisUrl, keyPrefix: `${keyPrefix}:reads` });
  const readsAdmin = new Redis(redisUrl);
  try {
    printStatusReads = await benchStatusReads(
      [
        { name: "memory", store: createMemorySpendStore() },
        { name: "sqlite", store: readsSqlite },
        { name: "redis", store: readsRedis },
      ],
      readsAdmin,
    );
  } finally {
    await readsSqlite.close();
    await readsRedis.close();
    await readsAdmin.quit();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = new Redis(redisUrl);
  // Every store's keys sit under a `{keyPrefix…}` hash tag.
  const keys = await admin.keys(`{${keyPrefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
}

console.log("reserve + settle pairs per store, closed loop with N in flight\n");
printTable(
  [
    "store",
    "in flight",
    "pairs",
    "pairs/s",
    "reserve p50 ms",
    "reserve p99 ms",
    "pair p50 ms",
    "pair p99 ms",
    "main busy µs/pair",
    "main cpu µs/pair",
    "redis-server µs/pair",
    "unavailable",
  ],
  rows,
);
printStatusReads();
