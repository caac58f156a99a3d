// The Lua script of the Redis spend store. One call runs a batch of operations on one budget
// window, in order, atomically: every reserve, settle and release this store issued for that
// window in one turn of its event loop. Redis spends most of a script call on the call itself
// (about two thirds of it, measured with `INFO commandstats` in the ledger benchmark), so one
// call per window per turn instead of one per operation is most of the store's cost in Redis.
//
//   KEYS[1] window hash (fields spent, reserved, seq)   KEYS[2] live reservations (zset by expiry)
//   KEYS[3] reservation amounts (hash id → micro-USD)  KEYS[4] finished reservation ids (set)
//   KEYS[5] set of known windows                      KEYS[6] records (zset by time)
//   ARGV[1] pub/sub channel ('' = do not publish)     ARGV[2] window member (JSON [rung, windowKey])
//   ARGV[3] '1' = publish the totals even when nothing changed (the deferred publish)
//   ARGV[4] the operations, six fields each, every field of every operation joined by '\n'
//     (see encodeOperations): kind, now (epoch ms), id, a, b, c —
//     'r' reserve:  a amount, b budget ('' = none), c expiresAtMs   flag: admitted
//     's' settle:   a cost, b record time (epoch ms), c record JSON  flag: booked
//     'l' release:  a, b, c unused                                  flag: released (was live)
//     'x' refresh:  id, a, b, c unused; expires stale reservations   flag: 0
//
// Before each operation, reservations expired by that operation's `now` are removed, so every
// operation sees exactly what it would see alone. Amounts travel as decimal strings: Redis
// converts Lua numbers to text inexactly above 10^14, so the script formats its totals itself
// (string.format %d, exact to 2^53). The script returns { flags, spent, reserved, next expiry
// ('' when none), seq }, the window's totals after the whole batch, and when it changed the window and
// was given a channel, publishes the same totals so other replicas update their mirrors. The
// caller leaves the channel empty to fold a burst of changes into one later publish (see
// `publishIntervalMs` in redis.ts); a refresh can force that publish.

import type { BatchOperation } from "./redis-batch";

/**
 * The script's ARGV[4]: every field of every operation joined by '\n'. One argument instead of
 * six per operation: the client's command encoder works per argument (a turn's call carries
 * tens of operations), and the script reads the fields back with a plain string search. No
 * field may hold a '\n': kinds and numbers cannot, a record's JSON never does (JSON.stringify
 * escapes control characters), and the store refuses a reservation id that does
 * ({@link isFieldSafe}).
 */
export function encodeOperations(
  operations: readonly Pick<BatchOperation, "kind" | "nowMs" | "args">[],
): string {
  let encoded = "";
  for (const {
    kind,
    nowMs,
    args: [id, a, b, c],
  } of operations) {
    encoded += `${encoded === "" ? "" : "\n"}${kind}\n${nowMs}\n${id}\n${a}\n${b}\n${c}`;
  }
  return encoded;
}

/** True when `value` can travel as one field of {@link encodeOperations}. */
export function isFieldSafe(value: string): boolean {
  return !value.includes("\n");
}

export const batchScript = `
local changed = false
-- The window's totals, read once; the batch's changes are added to them here and written back
-- at the end as one HINCRBY per total. Lua numbers are exact integers up to 2^53 micro-USD.
local totals = redis.call('HMGET', KEYS[1], 'spent', 'reserved', 'seq')
local spent = tonumber(totals[1] or '0')
local reserved = tonumber(totals[2] or '0')
local seq = tonumber(totals[3] or '0')
local spentDelta, reservedDelta = 0, 0
local function decimal(n) return string.format('%d', n) end
local function unreserve(amount)
  local micro = tonumber(amount)
  reserved = reserved - micro
  reservedDelta = reservedDelta - micro
end
-- The earliest live reservation, read once and kept current.
local firstId, nextExpiry
local function readFirst()
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  firstId, nextExpiry = first[1], first[2]
end
readFirst()
local function sweep(now)
  if not nextExpiry or tonumber(nextExpiry) > now then return end
  local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, id in ipairs(stale) do
    local amount = redis.call('HGET', KEYS[3], id)
    if amount then unreserve(amount) end
    redis.call('HDEL', KEYS[3], id)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  changed = true
  readFirst()
end
local function removeLive(id)
  local amount = redis.call('HGET', KEYS[3], id)
  if not amount then return false end
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
  unreserve(amount)
  changed = true
  if id == firstId then readFirst() end
  return true
end
-- A reserve of an id already live admits it again without counting it twice; a finished id is
-- never reserved again. HSETNX inserts and tells whether the id was live in one call.
local function reserve(id, amount, budget, expiresAt)
  if redis.call('SISMEMBER', KEYS[4], id) == 1 then
    return redis.call('HEXISTS', KEYS[3], id)
  end
  local micro = tonumber(amount)
  if budget ~= '' and spent + reserved + micro > tonumber(budget) then
    return redis.call('HEXISTS', KEYS[3], id)
  end
  if redis.call('HSETNX', KEYS[3], id, amount) == 0 then return 1 end
  redis.call('ZADD', KEYS[2], expiresAt, id)
  reserved = reserved + micro
  reservedDelta = reservedDelta + micro
  if not nextExpiry or tonumber(expiresAt) < tonumber(nextExpiry) then
    firstId, nextExpiry = id, expiresAt
  end
  changed = true
  return 1
end
-- SADD marks the id finished and tells whether it already was, in one call.
local function settle(id, cost, timeMs, record)
  if redis.call('SADD', KEYS[4], id) == 0 then return 0 end
  removeLive(id)
  local micro = tonumber(cost)
  spent = spent + micro
  spentDelta = spentDelta + micro
  redis.call('ZADD', KEYS[6], timeMs, record)
  changed = true
  return 1
end
local function release(id)
  if redis.call('SADD', KEYS[4], id) == 0 then return 0 end
  if removeLive(id) then return 1 end
  return 0
end
local flags = {}
-- ARGV[4]: six '\\n'-separated fields per operation (see encodeOperations); read in order.
local batch = ARGV[4]
local at = 1
local function field()
  local stop = string.find(batch, '\\n', at, true)
  local value
  if stop then
    value = string.sub(batch, at, stop - 1)
    at = stop + 1
  else
    value = string.sub(batch, at)
    at = #batch + 2
  end
  return value
end
while at <= #batch do
  -- One call each, in order (Lua leaves the order of an expression list's calls open).
  local kind = field()
  local now = field()
  local id = field()
  local a = field()
  local b = field()
  local c = field()
  sweep(tonumber(now))
  local flag = 0
  if kind == 'r' then
    flag = reserve(id, a, b, c)
  elseif kind == 's' then
    flag = settle(id, a, b, c)
  elseif kind == 'l' then
    flag = release(id)
  end
  flags[#flags + 1] = flag
end
if reservedDelta ~= 0 then redis.call('HINCRBY', KEYS[1], 'reserved', decimal(reservedDelta)) end
if spentDelta ~= 0 then redis.call('HINCRBY', KEYS[1], 'spent', decimal(spentDelta)) end
if changed then
  seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('SADD', KEYS[5], ARGV[2])
end
local expiry = nextExpiry or ''
local spentText, reservedText = decimal(spent), decimal(reserved)
if ARGV[1] ~= '' and (changed or ARGV[3] == '1') then
  redis.call('PUBLISH', ARGV[1], cjson.encode({ w = ARGV[2], s = spentText, r = reservedText, n = expiry, q = seq }))
end
return { flags, spentText, reservedText, expiry, seq }
`;
