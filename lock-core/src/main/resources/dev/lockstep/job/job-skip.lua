-- Records a firing's skip that could not be recorded when it happened (Redis could not be reached
-- at the firing), unless a later skip is recorded already: the record is the job's last skip.
-- KEYS[1] state hash
-- ARGV[1] instance, ARGV[2] when the firing was skipped (ms, by that instance's clock),
-- ARGV[3] slot ms ('' when none), ARGV[4] reason
-- Returns 1 when recorded, 0 when the recorded skip is later.
local recorded = tonumber(redis.call('HGET', KEYS[1], 'skip.at') or '0')
if recorded > tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'skip.instance', ARGV[1], 'skip.at', ARGV[2], 'skip.reason', ARGV[4], 'skip.slot', ARGV[3])
return 1
