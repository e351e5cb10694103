-- Starts the next task of the group that has waited longest; see take_next in queue-common.lua.
-- ARGV[1] owner id (one per take), ARGV[2] lease ms, ARGV[3] max attempts, ARGV[4] wake-up channel
-- Returns {1, id, group, payload, attempt, submitted ms, last error, now ms, fencing token} when a
-- task starts; {0, ms until the next lease or retry falls due, -1 when none}.
return take_next(ARGV[1], ARGV[2], ARGV[3], ARGV[4])
