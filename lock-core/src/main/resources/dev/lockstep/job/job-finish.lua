-- Records how a run of a guarded job ended and gives up its guard: released at once, or kept
-- until lockAtLeastFor has passed since the run started. Only the run's owner changes the guard.
-- KEYS[1] guard, KEYS[2] state hash, KEYS[3] run history (list, newest first)
-- ARGV[1] owner id, ARGV[2] instance, ARGV[3] slot ms ('' when none), ARGV[4] start ms (server),
-- ARGV[5] outcome ('success' or 'failed'), ARGV[6] exception class ('' when none),
-- ARGV[7] lockAtLeastFor ms, ARGV[8] history size
-- Returns 1 when the guard was released or shortened, 0 when this run no longer held it.
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
redis.call('HSET', KEYS[2], 'last.instance', ARGV[2], 'last.slot', ARGV[3], 'last.start', ARGV[4],
  'last.end', now, 'last.outcome', ARGV[5], 'last.error', ARGV[6])
redis.call('LPUSH', KEYS[3], table.concat({ARGV[2], ARGV[3], ARGV[4], now, ARGV[5], ARGV[6]}, '|'))
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[8]) - 1)

local current = redis.call('GET', KEYS[1])
if not current or holder_of(current) ~= ARGV[1] then
  return 0
end
local keep = tonumber(ARGV[7]) - (now - tonumber(ARGV[4]))
if keep > 0 then
  redis.call('PEXPIRE', KEYS[1], keep)
else
  redis.call('DEL', KEYS[1])
end
return 1
