-- Undoes a take whose reply never reached its worker (a timeout, an interrupt while the script was
-- on its way, or a worker that stops before it begins the task): the task it started, if any, goes
-- back to the head of its group as it was, its attempt not counted, since it never ran. Sent after
-- the take on the same connection, so it runs after it (and after the take sent again, if the
-- client sent it again after a reconnect).
-- ARGV[1] the take's owner id, ARGV[2] wake-up channel
-- Returns the id of the task given back, or false when the take started none.
local id = redis.call('HGET', base .. ':owners', ARGV[1])
if not id then
  return false
end
local group, err = unpack(redis.call('HMGET', task_key(id), 'group', 'error'))
redis.call('ZREM', base .. ':running', id)
redis.call('HINCRBY', task_key(id), 'attempt', -1)
requeue(id, group, err or '', ARGV[2], ARGV[1])
return id
