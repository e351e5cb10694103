-- Extends the leases of running tasks that are still their owner's.
-- ARGV[1] lease ms, then pairs of task id and owner id
-- Returns the ids whose lease is gone (given back or buried after it ran out).
local now = now_ms()
local lost = {}
for i = 2, #ARGV, 2 do
  local id, owner = ARGV[i], ARGV[i + 1]
  if redis.call('HGET', task_key(id), 'owner') == owner and redis.call('ZSCORE', base .. ':running', id) then
    redis.call('ZADD', base .. ':running', 'XX', now + tonumber(ARGV[1]), id)
  else
    lost[#lost + 1] = id
  end
end
return lost
