-- One instance's periodic visit to a permit key it has waiters for, as heartbeat.lua for a lock:
-- renews the liveness deadlines of its queued entries, drops entries whose deadline passed, hands
-- free permits to the head of the queue (a holder that died, a wake-up that never arrived), and
-- reports each of the instance's entries that is no longer queued with the token it holds (0:
-- none, its waiter queues again).
-- KEYS[1] holders, KEYS[2] wait queue, KEYS[3] liveness hash, KEYS[4] token counter
-- ARGV[1] liveness window in ms, ARGV[2] queue time-to-live in ms, ARGV[3] wake-up channel prefix,
-- ARGV[4..] queue entries of the instance's current waiters
-- Returns {false, ms until the first lease ends (-1 when none), then pairs entry, token}.
local now = now_ms()
local deadline = now + tonumber(ARGV[1])

local deadlines = {}
local flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do
  deadlines[flat[i]] = tonumber(flat[i + 1])
end
local own = {}
for i = 4, #ARGV do
  own[ARGV[i]] = true
end
local queued = {}
for _, entry in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  local entry_deadline = deadlines[entry]
  if own[entry] or not entry_deadline then
    redis.call('HSET', KEYS[3], entry, deadline)
    queued[entry] = true
  elseif entry_deadline < now then
    redis.call('LREM', KEYS[2], 0, entry)
  else
    queued[entry] = true
  end
end
for entry in pairs(deadlines) do
  if not queued[entry] then
    redis.call('HDEL', KEYS[3], entry)
  end
end

purge(KEYS[1], now)
grant_waiting(KEYS[1], KEYS[2], KEYS[4], now, ARGV[3])
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reply = {false, first[2] and (tonumber(first[2]) - now) or -1}
for i = 4, #ARGV do
  if not redis.call('LPOS', KEYS[2], ARGV[i]) then
    local instance, sequence = split_entry(ARGV[i])
    local _, token = holding(KEYS[1], (instance or '') .. ':' .. (sequence or ''))
    reply[#reply + 1] = ARGV[i]
    reply[#reply + 1] = token or 0
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
keep(KEYS[1], KEYS[4], now)
return reply
