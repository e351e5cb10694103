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

local queued = visit_waiters(KEYS[2], KEYS[3], now, deadline, 4)

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
