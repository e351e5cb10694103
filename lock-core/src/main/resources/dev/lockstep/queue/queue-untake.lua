-- Undoes a take whose reply never reached its worker (a timeout or an interrupt while the script
-- was on its way): the task it started, if any, goes back to the head of its group as it was, its
-- attempt not counted, since it never ran. Sent after the take on the same connection, so it runs
-- after it. Looks through the running tasks (as many as the workers of every instance), on this
-- rare path only.
-- ARGV[1] the take's owner id, ARGV[2] wake-up channel
-- Returns the id of the task given back, or false when the take started none.
local running = base .. ':running'
for _, id in ipairs(redis.call('ZRANGE', running, 0, -1)) do
  local group, owner, err = unpack(redis.call('HMGET', task_key(id), 'group', 'owner', 'error'))
  if owner == ARGV[1] then
    redis.call('ZREM', running, id)
    redis.call('HINCRBY', task_key(id), 'attempt', -1)
    requeue(id, group, err or '', ARGV[2])
    return id
  end
end
return false
