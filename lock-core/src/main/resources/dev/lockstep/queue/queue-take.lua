-- Starts the next task of the group that has waited longest, after giving back the tasks whose
-- lease ran out (buried instead when that was their last attempt) and readying the groups whose
-- retry is due.
-- ARGV[1] owner id (one per take), ARGV[2] lease ms, ARGV[3] max attempts, ARGV[4] wake-up channel
-- Returns {1, id, group, payload, attempt, submitted ms, last error, now ms} when a task starts;
-- {0, ms until the next lease or retry falls due, -1 when none}.
local now = now_ms()
local running = base .. ':running'
local delayed = base .. ':delayed'
for _, id in ipairs(redis.call('ZRANGEBYSCORE', running, '-inf', now, 'LIMIT', 0, 16)) do
  redis.call('ZREM', running, id)
  local group, attempt, owner = unpack(redis.call('HMGET', task_key(id), 'group', 'attempt', 'owner'))
  local why = 'attempt ' .. attempt .. ' did not end: its lease ran out (' .. tostring(owner) .. ' stopped renewing it)'
  if tonumber(attempt) >= tonumber(ARGV[3]) then
    bury(id, group, why, now, ARGV[4])
  else
    requeue(id, group, why, ARGV[4])
  end
end
for _, group in ipairs(redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 16)) do
  redis.call('ZREM', delayed, group)
  make_ready(group, ARGV[4], true)
end

for _ = 1, 16 do
  local group = redis.call('LPOP', base .. ':ready')
  if not group then
    break
  end
  local id = redis.call('LINDEX', group_key(group), 0)
  if id then
    local task = task_key(id)
    local attempt = redis.call('HINCRBY', task, 'attempt', 1)
    redis.call('HSET', task, 'state', 'RUNNING', 'owner', ARGV[1])
    redis.call('ZADD', running, now + tonumber(ARGV[2]), id)
    redis.call('DECR', base .. ':queued')
    local payload, submitted, err = unpack(redis.call('HMGET', task, 'payload', 'submitted', 'error'))
    return {1, id, group, payload or '', attempt, tonumber(submitted), err or '', now}
  end
end

local next_due = -1
local lease = redis.call('ZRANGE', running, 0, 0, 'WITHSCORES')
if lease[2] then
  next_due = tonumber(lease[2]) - now
end
local retry = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
if retry[2] and (next_due == -1 or tonumber(retry[2]) - now < next_due) then
  next_due = tonumber(retry[2]) - now
end
if next_due ~= -1 and next_due < 0 then
  next_due = 0
end
return {0, next_due}
