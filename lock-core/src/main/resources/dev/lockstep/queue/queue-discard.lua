-- Deletes a dead task for good: its record and payload leave Redis. Its deduplication id, if it had
-- one, stays taken for the rest of its window, so a message delivered again is not stored again.
-- ARGV[1] task id
-- Returns 1, or 0 when the task is not dead.
local id = ARGV[1]
local task = task_key(id)
if redis.call('HGET', task, 'state') ~= 'DEAD' then
  return 0
end
redis.call('ZREM', base .. ':dead', id)
redis.call('DEL', task)
return 1
