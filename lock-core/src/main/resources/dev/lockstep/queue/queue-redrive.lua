-- Puts a dead task back at the head of its group's waiting tasks (after the task running now, if
-- one is), its attempts counted from zero again, to run next: a group waiting out the retry backoff
-- of its head task waits no longer (the redriven task runs first, the retried one right after it).
-- The records of its earlier attempts' ends are dropped, so a task redriven again and again does
-- not grow. The same call sent again (Lettuce does after a reconnect) answers as the first did and
-- does nothing, even when the task went to the dead letters again meanwhile.
-- ARGV[1] task id, ARGV[2] wake-up channel, ARGV[3] the call's id, ARGV[4] ms its answer is kept
-- (see once_per_call)
-- Returns 1, or 0 when the task is not dead.
local function redrive()
  local id = ARGV[1]
  if not unbury(id) then
    return 0
  end
  local task = task_key(id)
  local fields = redis.call('HKEYS', task)
  local dropped = {'ended'}
  for _, field in ipairs(fields) do
    if string.sub(field, 1, 6) == 'ended:' then
      dropped[#dropped + 1] = field
    end
  end
  redis.call('HDEL', task, unpack(dropped))
  redis.call('HSET', task, 'state', 'QUEUED', 'attempt', 0)
  redis.call('INCR', base .. ':queued')
  local group = redis.call('HGET', task, 'group')
  local key = group_key(group)
  local head = redis.call('LINDEX', key, 0)
  if not head then
    redis.call('RPUSH', key, id)
    make_ready(group, ARGV[2], false)
  elseif redis.call('HGET', task_key(head), 'state') == 'RUNNING' then
    redis.call('LINSERT', key, 'AFTER', head, id)
  else
    redis.call('LPUSH', key, id)
    if redis.call('ZREM', base .. ':delayed', group) == 1 then
      make_ready(group, ARGV[2], true)
    end
  end
  return 1
end
return once_per_call(ARGV[3], ARGV[4], redrive)
