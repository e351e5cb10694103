-- Marks an instance as alive for a guarded job (it may be chosen to run the next slot) and keeps
-- the job's records for the retention time; or removes the instance when it shuts down.
-- KEYS[1] instances seen (instance -> last seen ms), KEYS[2..] the job's other record keys
-- ARGV[1] instance, ARGV[2] 'join' or 'leave', ARGV[3] retention ms
-- Returns 1.
if ARGV[2] == 'leave' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], ARGV[1], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
end
for i = 1, #KEYS do
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return 1
