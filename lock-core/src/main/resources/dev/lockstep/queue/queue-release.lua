-- Gives a running task back, unfinished (its instance stops): it runs again before its group's
-- later tasks, on any instance. The attempt it started stays counted.
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] reason, ARGV[4] wake-up channel
-- Returns 1 (also for the same call sent again once it was recorded: nothing changes then), or 0
-- when the task is no longer this owner's.
local id = ARGV[1]
local held, reply = owner_of(task_key(id), ARGV[2], 'release')
if held ~= 'holds' then
  return reply or 0
end
redis.call('ZREM', base .. ':running', id)
requeue(id, redis.call('HGET', task_key(id), 'group'), ARGV[3], ARGV[4], ARGV[2], end_record(ARGV[2], 'release', 1))
return 1
