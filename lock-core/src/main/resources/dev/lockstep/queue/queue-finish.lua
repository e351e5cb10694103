-- A task ran: it leaves its group, which may go on, and keeps only a DONE record (no payload) for
-- the deduplication window. With a next owner id, the worker then takes its next task in the same
-- step (see take_next in queue-common.lua), and idle workers are woken only if work is left after it.
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] ms to keep the record, ARGV[4] wake-up channel,
-- ARGV[5] next owner id ('' to take nothing), ARGV[6] lease ms, ARGV[7] max attempts
-- Returns {1, take reply} ({1, {0, -1}} when nothing was to be taken), or {0, {0, -1}} when the task
-- is no longer this owner's (its lease ran out and it was given back): then nothing is taken. The
-- same finish sent again once it was recorded (its reply lost) changes nothing and answers 1 with
-- the take of the next owner id: the task that owner holds when the first call took one (as the
-- first answered), else what a take finds now.
local id = ARGV[1]
local task = task_key(id)
local taking = ARGV[5] ~= ''
local held = owner_of(task, ARGV[2], 'finish')
if held ~= 'holds' then
  if held and taking then
    return {1, take_next(ARGV[5], ARGV[6], ARGV[7], ARGV[4])}
  end
  return {held and 1 or 0, {0, -1}}
end
redis.call('ZREM', base .. ':running', id)
local group = redis.call('HGET', task, 'group')
redis.call('HSET', task, 'state', 'DONE', 'ended', now_ms(), unpack(end_record(ARGV[2], 'finish', 1)))
redis.call('HDEL', task, 'payload')
disown(id, ARGV[2])
redis.call('PEXPIRE', task, ARGV[3])
leave_group(group, id, (not taking) and ARGV[4])
if not taking then
  return {1, {0, -1}}
end
local taken = take_next(ARGV[5], ARGV[6], ARGV[7], ARGV[4])
if redis.call('LLEN', base .. ':ready') > 0 then
  redis.call('PUBLISH', ARGV[4], '')
end
return {1, taken}
