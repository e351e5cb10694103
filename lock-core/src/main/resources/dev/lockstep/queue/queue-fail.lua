-- A task's attempt failed: it waits for a retry at the head of its group (the group waits with it),
-- or, after its last attempt, goes to the dead letters and the group goes on.
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] error text, ARGV[4] max attempts (0 buries at once),
-- ARGV[5] retry backoff ms, ARGV[6] wake-up channel
-- Returns 1 when the task waits for a retry, 2 when it is dead, 0 when it is no longer this owner's.
-- The same call sent again once it was recorded answers as the first did and changes nothing.
local id = ARGV[1]
local task = task_key(id)
local group, attempt = end_attempt(id, ARGV[2], 'fail')
if not group then
  return attempt
end
local now = now_ms()
if attempt >= tonumber(ARGV[4]) then
  bury(id, group, ARGV[3], now, ARGV[6], ARGV[2], end_record(ARGV[2], 'fail', 2))
  return 2
end
if tonumber(ARGV[5]) <= 0 then
  requeue(id, group, ARGV[3], ARGV[6], ARGV[2], end_record(ARGV[2], 'fail', 1))
  return 1
end
redis.call('HSET', task, 'state', 'QUEUED', 'error', ARGV[3], unpack(end_record(ARGV[2], 'fail', 1)))
disown(id, ARGV[2])
redis.call('INCR', base .. ':queued')
redis.call('ZADD', base .. ':delayed', now + tonumber(ARGV[5]), group)
-- an empty message: on every instance an idle worker takes as usual (not a woken take), so that
-- its take's reply tells when the retry falls due and the instance sets its timer
redis.call('PUBLISH', ARGV[6], '')
return 1
