import { Redis } from "ioredis";

/** The Redis server of the benchmark's Redis paths (REDIS_URL, else the local default). */
export const BENCH_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Removes the keys one benchmark server kept under `prefix` in the shared Redis. */
export async function deleteBenchKeys(prefix: string): Promise<void> {
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    // Keys sit under a `{prefix…}` hash tag or start with the prefix itself.
    for (const pattern of [`${prefix}*`, `{${prefix}*`]) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== "0");
    }
  } finally {
    redis.disconnect();
  }
}
