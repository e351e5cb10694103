-- Deletes a dead task for good: its record and payload leave Redis. Its deduplication id, if it had
-- one, stays taken for the rest of its window, so a message delivered again is not stored again.
-- ARGV[1] task id
-- Returns 1, or 0 when the task is not dead.
if not unbury(ARGV[1]) then
  return 0
end
redis.call('DEL', task_key(ARGV[1]))
return 1
