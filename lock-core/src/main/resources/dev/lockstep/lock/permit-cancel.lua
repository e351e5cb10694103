-- Takes a waiter that gives up (timeout, interrupt) out of the wait queue. If a permit was handed
-- to it just before, reports that so the caller can keep or release it.
-- KEYS[1] holders, KEYS[2] wait queue, KEYS[3] liveness hash, KEYS[4] token counter
-- ARGV[1] owner id, ARGV[2] the waiter's queue entry, ARGV[3] wake-up channel prefix
-- Returns the fencing token when the caller holds a permit, 0 otherwise.
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
local now = now_ms()
purge(KEYS[1], now)
local _, held = holding(KEYS[1], ARGV[1])
-- the waiter left may have stood before others that fit now
hand_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now, ARGV[3])
return held or 0
