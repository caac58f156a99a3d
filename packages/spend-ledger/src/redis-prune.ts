import type { Redis } from "ioredis";
import { windowEndBoundMs } from "./budget-window";
import { pruneInSteps } from "./prune-steps";
import { definedScript } from "./redis-defined-script";
import type { RedisKeyLayout } from "./redis-keys";
import type { WindowMirror } from "./redis-mirror";
import { minuteOf } from "./spend-minutes";
import type { StorePruneResult } from "./spend-store";

/**
 * Records and minute sums one step deletes at most: one short script, so Redis serves other
 * commands between steps (and `unpack` stays far below Lua's limit on arguments).
 */
const PRUNE_STEP = 1_000;

// KEYS[1] records (zset by time), KEYS[2] minute sums (hash), KEYS[3] their fields (zset by
// minute); ARGV[1] the cutoff minute (epoch ms), ARGV[2] at most this many of each.
// The records before the cutoff are the zset's lowest ranks; the sums' 'from' field stays.
const historyStepScript = `
local before = '(' .. ARGV[1]
local limit = tonumber(ARGV[2])
local records = math.min(redis.call('ZCOUNT', KEYS[1], '-inf', before), limit)
if records > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, records - 1) end
local fields = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', before, 'LIMIT', 0, limit)
if #fields > 0 then
  redis.call('HDEL', KEYS[2], unpack(fields))
  redis.call('ZREM', KEYS[3], unpack(fields))
end
return { records, #fields }
`;

// KEYS[1..4] a window's hash, live reservations, their amounts and finished ids, KEYS[5] the
// set of windows; ARGV[1] the window's member, ARGV[2] the cutoff. A window with a reservation
// live at the cutoff or later is kept (-1); otherwise it goes whole, and the script answers
// how many finished ids it held. UNLINK frees a large set of ids without blocking Redis.
const windowScript = `
if redis.call('ZCOUNT', KEYS[2], ARGV[2], '+inf') > 0 then return -1 end
local finished = redis.call('SCARD', KEYS[4])
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[5], ARGV[1])
return finished
`;

/**
 * The Redis spend store's prune (see `SpendStore.prune`): the records and minute sums before
 * the minute of `beforeMs`, in steps; then every budget window that ended before it and holds
 * no reservation live then, with its finished ids, each in one script (and out of `mirror`,
 * as are the ended windows another replica's prune took out).
 * Stops between scripts once `signal` is aborted.
 */
export async function pruneRedisHistory(
  client: Redis,
  layout: Pick<
    RedisKeyLayout,
    "recordsKey" | "minuteSumsKey" | "minuteFieldsKey" | "windowsKey" | "windowKeys"
  >,
  mirror: WindowMirror,
  beforeMs: number,
  signal?: AbortSignal,
): Promise<StorePruneResult> {
  const cutoff = minuteOf(beforeMs);
  const historyStep = definedScript<[number, number]>(
    client,
    "planfirstSpendPruneHistory",
    3,
    historyStepScript,
  );
  const pruneWindow = definedScript<number>(client, "planfirstSpendPruneWindow", 5, windowScript);
  const result = await pruneInSteps(
    async (limit) => {
      const [records, minuteSums] = await historyStep(
        layout.recordsKey,
        layout.minuteSumsKey,
        layout.minuteFieldsKey,
        cutoff,
        limit,
      );
      return { records, minuteSums, finishedIds: 0, windows: 0 };
    },
    PRUNE_STEP,
    signal,
  );
  const members = await client.smembers(layout.windowsKey);
  for (const member of members) {
    if (signal?.aborted) break;
    if (windowEndBoundMs(windowKeyOf(member)) > cutoff) continue;
    const keys = layout.windowKeys(member).slice(0, 5);
    const finished = await pruneWindow(...keys, member, cutoff);
    if (finished < 0) continue;
    mirror.delete(member);
    result.windows += 1;
    result.finishedIds += finished;
  }
  if (!signal?.aborted) {
    // An ended window missing from the set was taken out by another replica's prune: every
    // replica prunes, and each drops from its own mirror what is gone from Redis.
    const known = new Set(members);
    for (const member of mirror.keys()) {
      if (!known.has(member) && windowEndBoundMs(windowKeyOf(member)) <= cutoff) {
        mirror.delete(member);
      }
    }
  }
  return result;
}

/** The window key of a window's member (JSON `[rung, windowKey]`); '' when it is not one. */
function windowKeyOf(member: string): string {
  try {
    const parsed: unknown = JSON.parse(member);
    return Array.isArray(parsed) && typeof parsed[1] === "string" ? parsed[1] : "";
  } catch {
    return "";
  }
}
