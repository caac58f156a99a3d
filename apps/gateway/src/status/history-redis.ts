import { createLazyRedis } from "../redis-client";
import {
  emptyBucket,
  HISTORY_BUCKET_MS,
  HISTORY_RETENTION_MS,
  type HistoryBucket,
  type StatusHistoryStore,
} from "./history-store";

/** Options of {@link createRedisHistoryStore}. */
interface RedisHistoryStoreOptions {
  url: string;
  /** Prefix of every key, e.g. the gateway's `storage.keyPrefix` + `status`. */
  keyPrefix: string;
}

/**
 * The status history in Redis: one hash per five-minute bucket (`<prefix>:<bucketMs>`), request
 * counts as `r:<rung>` (HINCRBY, so replicas add up) and levels as `l:<series>` = `value@atMs`.
 * Each hash expires with the retention ({@link HISTORY_RETENTION_MS}), so pruning is Redis's job.
 */
export function createRedisHistoryStore(options: RedisHistoryStoreOptions): StatusHistoryStore {
  const { client, connected } = createLazyRedis(options.url, { maxRetriesPerRequest: 2 });
  const keyOf = (startMs: number) => `${options.keyPrefix}:${startMs}`;
  return {
    async add(buckets) {
      if (buckets.length === 0) return;
      await connected();
      const pipeline = client.pipeline();
      for (const bucket of buckets) {
        const key = keyOf(bucket.startMs);
        for (const [rung, count] of Object.entries(bucket.requests)) {
          pipeline.hincrby(key, `r:${rung}`, count);
        }
        for (const [series, reading] of Object.entries(bucket.levels)) {
          pipeline.hset(key, `l:${series}`, `${reading.value}@${reading.atMs}`);
        }
        pipeline.pexpireat(key, bucket.startMs + HISTORY_BUCKET_MS + HISTORY_RETENTION_MS);
      }
      await pipeline.exec();
    },
    async read(fromMs, toMs) {
      await connected();
      const starts: number[] = [];
      const first = Math.ceil(fromMs / HISTORY_BUCKET_MS) * HISTORY_BUCKET_MS;
      for (let start = first; start < toMs; start += HISTORY_BUCKET_MS) starts.push(start);
      const pipeline = client.pipeline();
      for (const start of starts) pipeline.hgetall(keyOf(start));
      const replies = (await pipeline.exec()) ?? [];
      const out: HistoryBucket[] = [];
      replies.forEach(([error, fields], index) => {
        if (error || !fields || typeof fields !== "object") return;
        const entries = Object.entries(fields as Record<string, string>);
        if (entries.length === 0) return;
        const bucket = emptyBucket(starts[index]!);
        for (const [field, raw] of entries) {
          if (field.startsWith("r:")) {
            const count = Number(raw);
            if (Number.isFinite(count)) bucket.requests[field.slice(2)] = count;
          } else if (field.startsWith("l:")) {
            const at = raw.lastIndexOf("@");
            const value = Number(raw.slice(0, at));
            const atMs = Number(raw.slice(at + 1));
            if (at > 0 && Number.isFinite(value) && Number.isFinite(atMs)) {
              bucket.levels[field.slice(2)] = { value, atMs };
            }
          }
        }
        out.push(bucket);
      });
      return out;
    },
    async prune() {
      // Every bucket hash carries its own expiry: nothing to delete by hand.
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
