-- One instance's periodic visit to a lock it has waiters for: renews the liveness deadlines of its
-- queued entries, drops entries whose deadline passed (their instance died), reports its entries
-- that are no longer queued (their waiters queue again themselves; nobody else writes an entry),
-- and hands a free lock to the head of the queue (a holder that died, or a wake-up that never
-- arrived). Deadlines are per entry and use the Redis server's clock only.
-- KEYS[1] lock, KEYS[2] wait queue, KEYS[3] liveness hash (entry -> deadline in ms)
-- ARGV[1] liveness window in ms, ARGV[2] queue time-to-live in ms, ARGV[3] wake-up channel prefix,
-- ARGV[4..] queue entries of the instance's current waiters
-- Returns {the lock's value ('<owner id>:<token>') or false, its PTTL, entries of the instance no longer queued...}.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local deadline = now_ms + tonumber(ARGV[1])

local queued = visit_waiters(KEYS[2], KEYS[3], now_ms, deadline, 4)

local current = redis.call('GET', KEYS[1])
if not current then
  local owner, token = grant_next(KEYS[1], KEYS[2], nil, ARGV[3])
  if owner then
    current = owner .. ':' .. format_token(token)
  end
end
local reply = {current or false, redis.call('PTTL', KEYS[1])}
local holder = current and holder_of(current)
for i = 4, #ARGV do
  local instance, sequence = split_triple(ARGV[i])
  if not queued[ARGV[i]] and holder ~= (instance .. ':' .. sequence) then
    reply[#reply + 1] = ARGV[i]
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return reply
