-- A task ran: it leaves its group, which may go on, and keeps only a DONE record (no payload) for
-- the deduplication window. With a next owner id, the worker then takes its next task in the same
-- step (see take_from in queue-common.lua), and idle workers are woken only if work is left after it.
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] ms to keep the record, ARGV[4] wake-up channel,
-- ARGV[5] next owner id ('' to take nothing), ARGV[6] lease ms, ARGV[7] max attempts,
-- ARGV[8] '1' for the take to handle the leases and retries that fell due first, else '0', ARGV[9]
-- ms an idle worker waits at most before it looks again, and more (see :idle in queue-common.lua)
-- Returns {1, take reply} ({1, {0, -1}} when nothing was to be taken), or {0, {0, -1}} when the task
-- is no longer this owner's (its lease ran out and it was given back): then nothing is taken. The
-- same finish sent again once it was recorded (its reply lost) changes nothing and answers 1 with
-- the take of the next owner id: the task that owner holds when the first call took one (as the
-- first answered), else what a take finds now.
local id = ARGV[1]
local owner = ARGV[2]
local channel = ARGV[4]
local task = task_key(id)
local taking = ARGV[5] ~= ''
local sweeping = ARGV[8] == '1'
local holder, recorded, group = unpack(redis.call('HMGET', task, 'owner', 'ended:' .. owner, 'group'))
local held = end_of(holder, recorded, owner, 'finish')
local now, now_us = clock()
if held ~= 'holds' then
  if held and taking then
    return {1, (take_next(ARGV[5], ARGV[6], ARGV[7], channel, sweeping, now, now_us, ARGV[9]))}
  end
  return {held and 1 or 0, {0, -1}}
end
redis.call('ZREM', base .. ':running', id)
-- the payload and owner emptied in the same write: the record is kept only to answer a finish or
-- submit sent again
redis.call('HSET', task, 'state', 'DONE', 'ended', now, 'payload', '', 'owner', '', unpack(end_record(owner, 'finish', 1)))
redis.call('HDEL', base .. ':owners', owner)
redis.call('PEXPIRE', task, ARGV[3])
local key = group_key(group)
redis.call('LREM', key, 1, id)
local goes_on = redis.call('LLEN', key) > 0
if not taking then
  if goes_on then
    make_ready(group, channel, false)
  end
  return {1, {0, -1}}
end
if sweeping then
  sweep(now, ARGV[7], channel)
end
local state = take_state(ARGV[5])
local waiting
if goes_on then
  -- readied after the state is read, so that whether some group is paused is known
  waiting = make_ready(group, false, false, state.pauses)
end
local taken, left = take_from(ARGV[5], ARGV[6], ARGV[7], channel, sweeping, state, now, now_us, waiting)
if taken[1] == 0 then
  mark_idle(ARGV[5], ARGV[9])
else
  if left == nil then
    left = redis.call('LLEN', base .. ':ready')
  end
  if left > 0 then
    -- work is left for others: wake them, if one may be idle
    wake_if_idle(channel)
  end
end
return {1, taken}
