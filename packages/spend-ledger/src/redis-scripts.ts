// Lua scripts of the Redis spend store. Every script receives the same first keys and
// arguments, so the shared prologue and epilogue can be written once:
//   KEYS[1] window hash (fields spent, reserved, seq)   KEYS[2] live reservations (zset by expiry)
//   KEYS[3] reservation amounts (hash id → micro-USD)  KEYS[4] finished reservation ids (set)
//   KEYS[5] set of known windows                      KEYS[6] records (zset by time; settle only)
//   ARGV[1] now (epoch ms)  ARGV[2] pub/sub channel ('' = do not publish)
//   ARGV[3] window member (JSON [rung, windowKey])
// Amounts stay strings end to end: Redis converts Lua numbers to text inexactly above 10^14.
// Each script returns { flag, spent, reserved, next expiry ('' when none), seq } and, when it
// changed the window and was given a channel, publishes the same totals so other replicas
// update their mirrors. The caller leaves the channel empty to fold a burst of changes into one
// later publish (see `publishIntervalMs` in redis.ts); the refresh script can force that publish.

const prologue = `
local now = tonumber(ARGV[1])
local changed = false
local publish = false
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(stale) do
  local amount = redis.call('HGET', KEYS[3], id)
  if amount and amount ~= '0' then redis.call('HINCRBY', KEYS[1], 'reserved', '-' .. amount) end
  redis.call('HDEL', KEYS[3], id)
end
if #stale > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  changed = true
end
local function finish(flag)
  local seq
  if changed then
    seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    redis.call('SADD', KEYS[5], ARGV[3])
  else
    seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
  end
  local spent = redis.call('HGET', KEYS[1], 'spent') or '0'
  local reserved = redis.call('HGET', KEYS[1], 'reserved') or '0'
  local nextExpiry = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2] or ''
  if (changed or publish) and ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], cjson.encode({ w = ARGV[3], s = spent, r = reserved, n = nextExpiry, q = seq }))
  end
  return { flag, spent, reserved, nextExpiry, seq }
end
local function removeLive(id)
  local amount = redis.call('HGET', KEYS[3], id)
  if not amount then return false end
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
  if amount ~= '0' then redis.call('HINCRBY', KEYS[1], 'reserved', '-' .. amount) end
  changed = true
  return true
end
`;

/** ARGV[4] id, ARGV[5] amount, ARGV[6] budget ('' = none), ARGV[7] expiresAtMs. Flag: admitted. */
export const reserveScript = `${prologue}
local id = ARGV[4]
if redis.call('HEXISTS', KEYS[3], id) == 1 then return finish(1) end
if redis.call('SISMEMBER', KEYS[4], id) == 1 then return finish(0) end
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
if ARGV[6] ~= '' and spent + reserved + tonumber(ARGV[5]) > tonumber(ARGV[6]) then
  return finish(0)
end
redis.call('HSET', KEYS[3], id, ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[7], id)
redis.call('HINCRBY', KEYS[1], 'reserved', ARGV[5])
changed = true
return finish(1)
`;

/** ARGV[4] id, ARGV[5] cost, ARGV[6] record time (epoch ms), ARGV[7] record JSON. Flag: booked. */
export const settleScript = `${prologue}
local id = ARGV[4]
if redis.call('SISMEMBER', KEYS[4], id) == 1 then return finish(0) end
removeLive(id)
redis.call('HINCRBY', KEYS[1], 'spent', ARGV[5])
redis.call('SADD', KEYS[4], id)
redis.call('ZADD', KEYS[6], ARGV[6], ARGV[7])
changed = true
return finish(1)
`;

/** ARGV[4] id. Flag: released (the reservation was live). */
export const releaseScript = `${prologue}
local id = ARGV[4]
if redis.call('SISMEMBER', KEYS[4], id) == 1 then return finish(0) end
redis.call('SADD', KEYS[4], id)
if removeLive(id) then return finish(1) end
return finish(0)
`;

/**
 * Expires stale reservations and returns the totals; ARGV[4] '1' publishes them even when
 * nothing changed (the deferred publish of earlier changes). Flag: 0.
 */
export const refreshScript = `${prologue}
publish = ARGV[4] == '1'
return finish(0)
`;
