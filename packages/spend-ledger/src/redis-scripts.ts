// The Lua script of the Redis spend store. One call runs a batch of operations on one budget
// window, in order, atomically: every reserve, settle and release this store issued for that
// window in one turn of its event loop. Redis spends most of a script call on the call itself
// (about two thirds of it, measured with `INFO commandstats` in the ledger benchmark), so one
// call per window per turn instead of one per operation is most of the store's cost in Redis.
//
//   KEYS[1] window hash (fields spent, reserved, seq)   KEYS[2] live reservations (zset by expiry)
//   KEYS[3] reservation amounts (hash id → micro-USD)  KEYS[4] finished reservation ids (set)
//   KEYS[5] set of known windows                      KEYS[6] records (zset by time)
//   KEYS[7] minute sums (hash: field → sums, and 'from') KEYS[8] minute sums' fields (zset by minute)
//   ARGV[1] pub/sub channel ('' = do not publish)     ARGV[2] window member (JSON [rung, windowKey])
//   ARGV[3] '1' = publish the totals even when nothing changed (the deferred publish)
//   ARGV[4] the operations, six fields each, every field of every operation joined by '\n'
//     (see encodeOperations): kind, now (epoch ms), id, a, b, c —
//     'r' reserve:  a amount, b budget ('' = none), c expiresAtMs   flag: admitted
//     's' settle:   a cost, b record time (epoch ms), c the record   flag: booked
//                   (c '' books the cost and keeps no record: a budget scope beside its rung)
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
// `publishIntervalMs` in redis-store-options.ts); a refresh can force that publish.
//
// A settle's record (see encodeSettleRecord) is also added to its minute's sums (see
// spend-minutes.ts): KEYS[7] field '<minute start ms>\n<series>' holds 'requests cost input
// output cachedInput cacheWrite' as decimal integers, and KEYS[8] scores each such field by its
// minute, so a summary finds a time range's fields without a scan. The sums of a batch are
// gathered first and written once per field. KEYS[7] field 'from' is the
// first minute whose sums are complete: set by the first record booked with sums (the minute
// after it), so the records a store of an earlier version booked, which have none, are read
// as records.

import type { BatchOperation } from "./redis-batch";
import type { SpendRecord } from "./spend-record";

/**
 * The script's ARGV[4]: every field of every operation joined by '\n'. One argument instead of
 * six per operation: the client's command encoder works per argument (a turn's call carries
 * tens of operations), and the script reads the fields back with a plain string search. No
 * field may hold a '\n': kinds and numbers cannot, a settle's record never does (see
 * {@link encodeSettleRecord}), and the store refuses a reservation id that does
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

/**
 * A settle's record as the script's field `c`: the record's series (JSON
 * `[windowKey, rung, connectionId, model, clientKeyId]`, which names its minute sums), its token
 * counts (input, output, cached input, cache write), and the record's JSON, which the records'
 * sorted set keeps, separated by tabs. The script reads the sums from the first two with plain
 * string searches instead of decoding the record's JSON in Redis: on calls of ten reserves and
 * ten settles, 172 µs of Redis time without sums, 248 with sums from the decoded JSON, 220 this
 * way. JSON never holds a raw tab or line break (JSON.stringify escapes them).
 */
export function encodeSettleRecord(record: SpendRecord): string {
  const series = [
    record.windowKey,
    record.rung,
    record.connectionId,
    record.model,
    record.clientKeyId,
  ];
  const counts = `${record.inputTokens} ${record.outputTokens} ${record.cachedInputTokens} ${record.cacheWriteTokens}`;
  return `${JSON.stringify(series)}\t${counts}\t${JSON.stringify(record)}`;
}

/** True when `value` can travel as one field of {@link encodeOperations}. */
export function isFieldSafe(value: string): boolean {
  return !value.includes("\n");
}

export const batchScript = `
local changed = false
-- The window's totals, read once; the batch's changes are made to them here and written back
-- at the end in one HSET (the script is atomic, so nothing else writes them in between). Lua
-- numbers are exact integers up to 2^53 micro-USD.
local totals = redis.call('HMGET', KEYS[1], 'spent', 'reserved', 'seq')
local spent = tonumber(totals[1] or '0')
local reserved = tonumber(totals[2] or '0')
local seq = tonumber(totals[3] or '0')
local function decimal(n) return string.format('%d', n) end
local function unreserve(amount)
  reserved = reserved - tonumber(amount)
end
-- No live reservation expires before nextExpiry (nil: none is live). When exact, it is the
-- earliest live reservation's expiry and firstId that reservation; settling or releasing that
-- one leaves it a bound only, and the live set is read again only when an operation's clock
-- reaches the bound or at the end (settles come mostly in reservation order: reading the new
-- earliest after each of them would cost a call per settle).
local firstId, nextExpiry, exact
local function readFirst()
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  firstId, nextExpiry, exact = first[1], first[2], true
end
readFirst()
local function sweep(now)
  if nextExpiry and not exact and tonumber(nextExpiry) <= now then readFirst() end
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
  if id == firstId then exact = false end
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
  -- Below the bound, it is the earliest live reservation.
  if not nextExpiry or tonumber(expiresAt) < tonumber(nextExpiry) then
    firstId, nextExpiry, exact = id, expiresAt, true
  end
  changed = true
  return 1
end
-- The batch's additions to the minute sums, by minute and series; \`added\` lists them in the
-- order first seen.
local minuteSums, added = {}, {}
local function addToMinute(timeMs, series, counts, cost)
  local t = tonumber(timeMs)
  local minute = t - t % 60000
  local ofMinute = minuteSums[minute]
  if not ofMinute then
    ofMinute = {}
    minuteSums[minute] = ofMinute
  end
  local sums = ofMinute[series]
  if not sums then
    sums = { 0, 0, 0, 0, 0, 0, minute = minute, series = series }
    ofMinute[series] = sums
    added[#added + 1] = sums
  end
  local input, output, cached, written =
    string.match(counts, '^(%-?%d+) (%-?%d+) (%-?%d+) (%-?%d+)$')
  sums[1] = sums[1] + 1
  sums[2] = sums[2] + tonumber(cost)
  sums[3] = sums[3] + tonumber(input)
  sums[4] = sums[4] + tonumber(output)
  sums[5] = sums[5] + tonumber(cached)
  sums[6] = sums[6] + tonumber(written)
end
-- SADD marks the id finished and tells whether it already was, in one call. \`booked\` is the
-- record (see encodeSettleRecord), or '' to keep none.
local function settle(id, cost, timeMs, booked)
  if redis.call('SADD', KEYS[4], id) == 0 then return 0 end
  removeLive(id)
  spent = spent + tonumber(cost)
  if booked ~= '' then
    local seriesEnd = string.find(booked, '\\t', 1, true)
    local countsEnd = string.find(booked, '\\t', seriesEnd + 1, true)
    -- Summed only when the set took it: the sums are always those of the records it holds.
    if redis.call('ZADD', KEYS[6], timeMs, string.sub(booked, countsEnd + 1)) == 1 then
      addToMinute(timeMs, string.sub(booked, 1, seriesEnd - 1),
        string.sub(booked, seriesEnd + 1, countsEnd - 1), cost)
    end
  end
  changed = true
  return 1
end
local function release(id)
  if redis.call('SADD', KEYS[4], id) == 0 then return 0 end
  if removeLive(id) then return 1 end
  return 0
end
local flags = {}
-- ARGV[4]: six '\\n'-separated fields per operation (see encodeOperations). The five short ones
-- are read by one anchored match (() gives where the sixth starts); the sixth, a settle's record
-- JSON, by a plain search for its end, which costs far less than a pattern's test of each byte.
local batch = ARGV[4]
local shortFields = '^([^\\n]*)\\n([^\\n]*)\\n([^\\n]*)\\n([^\\n]*)\\n([^\\n]*)\\n()'
local at = 1
while at <= #batch do
  local kind, now, id, a, b, start = string.match(batch, shortFields, at)
  local stop = string.find(batch, '\\n', start, true) or #batch + 1
  local c = string.sub(batch, start, stop - 1)
  at = stop + 1
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
if not exact then readFirst() end
for _, sums in ipairs(added) do
  local minute = decimal(sums.minute)
  local field = minute .. '\\n' .. sums.series
  local stored = redis.call('HGET', KEYS[7], field)
  if stored then
    local index = 1
    for number in string.gmatch(stored, '%-?%d+') do
      sums[index] = sums[index] + tonumber(number)
      index = index + 1
    end
  else
    redis.call('ZADD', KEYS[8], minute, field)
  end
  redis.call('HSET', KEYS[7], field,
    string.format('%d %d %d %d %d %d', sums[1], sums[2], sums[3], sums[4], sums[5], sums[6]))
end
if #added > 0 and redis.call('HEXISTS', KEYS[7], 'from') == 0 then
  redis.call('HSET', KEYS[7], 'from', decimal(added[1].minute + 60000))
end
local spentText, reservedText = decimal(spent), decimal(reserved)
if changed then
  seq = seq + 1
  redis.call('HSET', KEYS[1], 'spent', spentText, 'reserved', reservedText, 'seq', decimal(seq))
  redis.call('SADD', KEYS[5], ARGV[2])
end
local expiry = nextExpiry or ''
if ARGV[1] ~= '' and (changed or ARGV[3] == '1') then
  redis.call('PUBLISH', ARGV[1], cjson.encode({ w = ARGV[2], s = spentText, r = reservedText, n = expiry, q = seq }))
end
return { flags, spentText, reservedText, expiry, seq }
`;
