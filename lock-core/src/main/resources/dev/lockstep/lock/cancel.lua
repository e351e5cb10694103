-- Takes a waiter that gives up (timeout, interrupt) out of the wait queue. If the lock was
-- handed to it just before, reports that so the caller can keep or release it.
-- KEYS[1] lock, KEYS[2] wait queue, KEYS[3] liveness hash (entry -> deadline)
-- ARGV[1] owner id, ARGV[2] the waiter's queue entry, ARGV[3] wake-up channel prefix
-- Returns the fencing token when the caller holds the lock, 0 otherwise.
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
local current, mine = held_by(KEYS[1], ARGV[1])
if mine then
  return mine
elseif current then
  -- held by another: it hands on when it releases
elseif redis.call('EXISTS', KEYS[2]) == 1 then
  grant_next(KEYS[1], KEYS[2], nil, ARGV[3])
else
  redis.call('DEL', KEYS[3])
end
return 0
