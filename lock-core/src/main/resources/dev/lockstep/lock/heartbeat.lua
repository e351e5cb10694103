-- One instance's periodic visit to a lock it has waiters for: marks the instance alive, drops
-- queue entries of instances whose liveness ran out (their JVM died), puts back any of its own
-- entries the queue lost, and hands a free lock to the head of the queue (a holder that died,
-- or a wake-up that never arrived). Deadlines use the Redis server's clock only.
-- KEYS[1] lock, KEYS[2] wait queue, KEYS[3] waiter liveness hash (instance -> deadline in ms)
-- ARGV[1] instance id, ARGV[2] liveness window in ms, ARGV[3] queue time-to-live in ms,
-- ARGV[4] wake-up channel prefix, ARGV[5..] queue entries of the instance's current waiters
-- Returns {the lock's value ('<owner id>:<token>') or false when nobody holds it, its PTTL}.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], now_ms + window)

local deadlines = {}
local flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do
  deadlines[flat[i]] = tonumber(flat[i + 1])
end
local queued = {}
for _, entry in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  local instance = split_triple(entry)
  local deadline = instance and deadlines[instance]
  if not deadline then
    -- not heard from yet: give it one window from now
    if instance then
      deadlines[instance] = now_ms + window
      redis.call('HSET', KEYS[3], instance, now_ms + window)
    end
    queued[entry] = true
  elseif deadline < now_ms then
    redis.call('LREM', KEYS[2], 0, entry)
  else
    queued[entry] = true
  end
end

local current = redis.call('GET', KEYS[1])
local holder = current and holder_of(current)
for i = 5, #ARGV do
  local entry = ARGV[i]
  local instance, sequence = split_triple(entry)
  if not queued[entry] and holder ~= (instance .. ':' .. sequence) then
    redis.call('RPUSH', KEYS[2], entry)
  end
end
if not current then
  local owner, token = grant_next(KEYS[1], KEYS[2], nil, ARGV[4])
  if owner then
    current = owner .. ':' .. format_token(token)
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {current or false, redis.call('PTTL', KEYS[1])}
