-- Marks an instance as alive for a guarded job (it may be chosen to run the next slot), or
-- removes it when it shuts down.
-- KEYS[1] instances seen (instance -> last seen ms)
-- ARGV[1] instance, ARGV[2] 'join' or 'leave', ARGV[3] retention ms
-- Returns 1.
if ARGV[2] == 'leave' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], ARGV[1], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
