-- A task ran: it leaves its group, which may go on, and keeps only a DONE record (no payload) for
-- the deduplication window.
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] ms to keep the record, ARGV[4] wake-up channel
-- Returns 1, or 0 when the task is no longer this owner's (its lease ran out and it was given back).
local id = ARGV[1]
local task = task_key(id)
if redis.call('HGET', task, 'owner') ~= ARGV[2] then
  return 0
end
redis.call('ZREM', base .. ':running', id)
local group = redis.call('HGET', task, 'group')
redis.call('HSET', task, 'state', 'DONE', 'ended', now_ms())
redis.call('HDEL', task, 'owner', 'payload')
redis.call('PEXPIRE', task, ARGV[3])
leave_group(group, id, ARGV[4])
return 1
