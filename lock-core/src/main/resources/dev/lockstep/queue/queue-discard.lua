-- Deletes a dead task for good: its record and payload leave Redis. Its deduplication id, if it had
-- one, stays taken for the rest of its window, so a message delivered again is not stored again.
-- The same call sent again (Lettuce does after a reconnect) answers as the first did.
-- ARGV[1] task id, ARGV[2] the call's id, ARGV[3] ms its answer is kept (see once_per_call)
-- Returns 1, or 0 when the task is not dead.
local function discard()
  if not unbury(ARGV[1]) then
    return 0
  end
  redis.call('DEL', task_key(ARGV[1]))
  return 1
end
return once_per_call(ARGV[2], ARGV[3], discard)
