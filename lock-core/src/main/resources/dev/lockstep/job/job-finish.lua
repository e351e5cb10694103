-- Records how a run of a guarded job ended and gives up its guard: released at once, or kept
-- until lockAtLeastFor has passed since the run started. Only the run's owner changes the guard.
-- The history is a list, newest first, trimmed back to its size once it holds twice as many (so
-- most calls do not trim); readers read the first entries only. Each record names its run's owner
-- id (unique per claim), so the same finish sent again (a client replays it after a reconnect)
-- finds its record and changes nothing.
-- KEYS[1] guard, KEYS[2] run history (list, newest first)
-- ARGV[1] owner id, ARGV[2] instance, ARGV[3] slot ms ('' when none), ARGV[4] start ms (server),
-- ARGV[5] end ms (the start plus the run's duration by the caller's monotonic clock),
-- ARGV[6] outcome ('success' or 'failed'), ARGV[7] exception class ('' when none),
-- ARGV[8] lockAtLeastFor ms, ARGV[9] history size
-- Returns 1 when the guard was released or shortened (or this finish was sent before), 0 when
-- this run no longer held it.
local record = table.concat({ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[1]}, '|')
local current = redis.call('GET', KEYS[1])
local holds = current and holder_of(current) == ARGV[1]
local keep = tonumber(ARGV[8]) - (tonumber(ARGV[5]) - tonumber(ARGV[4]))
-- a first finish that releases the guard finds it held; a finish sent again then finds it gone
if (not holds or keep > 0) and redis.call('LPOS', KEYS[2], record) then
  return 1
end

local size = tonumber(ARGV[9])
if redis.call('LPUSH', KEYS[2], record) >= 2 * size then
  redis.call('LTRIM', KEYS[2], 0, size - 1)
end
if not holds then
  return 0
end
if keep > 0 then
  redis.call('PEXPIRE', KEYS[1], keep)
else
  redis.call('DEL', KEYS[1])
end
return 1
