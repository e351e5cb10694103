-- Starts the next task of the group that has waited longest; see take_from in queue-common.lua.
-- ARGV[1] owner id (one per take), ARGV[2] lease ms, ARGV[3] max attempts, ARGV[4] wake-up channel,
-- ARGV[5] '1' to handle the leases and retries that fell due first, else '0', ARGV[6] ms an idle
-- worker waits at most before it looks again, and more (see :idle in queue-common.lua), ARGV[7] '1'
-- when the worker was woken by a wake-up (see woken_take in queue-common.lua), else '0'
-- Returns {1, id, group, payload, attempt, submitted ms, last error, now ms, fencing token} when a
-- task starts; {0, ms until the next lease or retry falls due, -1 when none}; {0, -2} when a woken
-- worker's take started nothing.
if ARGV[7] == '1' then
  return woken_take(ARGV[1], ARGV[2], ARGV[4])
end
local now, now_us = clock()
return (take_next(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] == '1', now, now_us, ARGV[6]))
