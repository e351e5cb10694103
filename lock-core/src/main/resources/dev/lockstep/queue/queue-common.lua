-- Shared by the queue scripts; loaded first. Every key of queue Q starts with KEYS[1], the queue's
-- base '<prefix>{queue:Q}', so all of a queue's keys share one hash slot:
--   :ready    list of groups whose next task may start now, each at most once, longest waiting first
--   :delayed  zset group -> when its failed task may be retried (ms, server clock)
--   :running  zset task id -> when its lease runs out (ms, server clock)
--   :dead     zset task id -> when it died
--   :queued   count of queued tasks (no key when zero)
--   :g:<group> list of the group's task ids in order; the head is the one running or retried next
--   :t:<id>   hash: the task (group, payload, state, attempt, submitted, error, owner, token (the
--             server clock in microseconds when its latest attempt started), ended, dedup,
--             and 'ended:<owner id>' = '<finish|fail|release>:<reply>' for each owner whose end of
--             the task was recorded)
--   :d:<deduplication id> the task id, for the deduplication window
--   :owners   hash owner id -> task id, for each running task (the owner of its take): a take sent
--             again under the same owner id (its reply lost, the client sent it again) finds the
--             task the first one started, rather than start a second one nobody runs
--   :paused   set of paused groups (see queue-pause.lua): their tasks keep their order, no worker
--             starts one until the group is resumed
--   :held     list of paused groups whose next task could start (a paused group's place instead
--             of :ready), each at most once
--   :paused-queue  '1' while the whole queue is paused: takes start nothing (leases and retries
--             falling due are still handled)
-- A group with tasks is in exactly one of :ready, :held, :delayed, or running (its head task in
-- :running); a paused group is never in :ready.
local base = KEYS[1]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The server clock in ms, and in microseconds as exact decimal text (a Lua number would print
-- in exponent notation).
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), t[1] .. string.format('%06d', tonumber(t[2]))
end

local function task_key(id)
  return base .. ':t:' .. id
end

local function group_key(group)
  return base .. ':g:' .. group
end

-- The group's next task may start: the group joins the groups waiting for a worker (at the front
-- when its head task has had its turn already), and idle workers are woken unless the caller
-- takes a task itself right after (channel false) and wakes them only if work is left then.
local function make_ready(group, channel, front)
  if redis.call('SISMEMBER', base .. ':paused', group) == 1 then
    -- paused: it waits aside, no worker is woken; resuming it readies it (queue-resume.lua)
    redis.call('RPUSH', base .. ':held', group)
    return
  end
  if front then
    redis.call('LPUSH', base .. ':ready', group)
  else
    redis.call('RPUSH', base .. ':ready', group)
  end
  if channel then
    redis.call('PUBLISH', channel, group)
  end
end

-- A task leaves its group (done or dead): the group's next task, if any, may start.
local function leave_group(group, id, channel)
  local key = group_key(group)
  redis.call('LREM', key, 1, id)
  if redis.call('LLEN', key) > 0 then
    make_ready(group, channel, false)
  end
end

-- Whether `owner` holds the task now ('holds'); or held it and its end of this `kind` (finish,
-- fail or release) was recorded ('ended', and the reply the end had): the same call sent again
-- after its reply was lost, to be answered as the first was without doing anything twice; or
-- neither (nil).
local function owner_of(task, owner, kind)
  local holder, recorded = unpack(redis.call('HMGET', task, 'owner', 'ended:' .. owner))
  if holder == owner then
    return 'holds'
  end
  local reply = recorded and string.match(recorded, '^' .. kind .. ':(%d+)$')
  if reply then
    return 'ended', tonumber(reply)
  end
  return nil
end

-- The record of an owner's end of a task, written with the end's other fields (see owner_of).
local function end_record(owner, kind, reply)
  return {'ended:' .. owner, kind .. ':' .. reply}
end

-- Writes a task's fields, and the record of the end that writes them (nil for none).
local function set_fields(id, ended, ...)
  if ended then
    redis.call('HSET', task_key(id), ended[1], ended[2], ...)
  else
    redis.call('HSET', task_key(id), ...)
  end
end

-- The task's owner (the owner of its take) no longer holds it.
local function disown(id, owner)
  redis.call('HDEL', task_key(id), 'owner')
  if owner then
    redis.call('HDEL', base .. ':owners', owner)
  end
end

-- Moves a task to the dead letters, keeping its payload for a redrive; its group goes on. `owner`
-- held it; `ended` records that owner's end that buried it (nil when its lease ran out).
local function bury(id, group, err, now, channel, owner, ended)
  set_fields(id, ended, 'state', 'DEAD', 'error', err, 'ended', now)
  disown(id, owner)
  redis.call('ZADD', base .. ':dead', now, id)
  leave_group(group, id, channel)
end

-- Takes a dead task out of the dead letters, for a redrive or a discard; false when it is not dead.
local function unbury(id)
  if redis.call('HGET', task_key(id), 'state') ~= 'DEAD' then
    return false
  end
  redis.call('ZREM', base .. ':dead', id)
  return true
end

-- A task goes back to waiting (a retry due now, a lease that ran out, a task given back). `owner`
-- held it; `ended` records that owner's end that gave it back (nil when its lease ran out or its
-- take was undone).
local function requeue(id, group, err, channel, owner, ended)
  set_fields(id, ended, 'state', 'QUEUED', 'error', err)
  disown(id, owner)
  redis.call('INCR', base .. ':queued')
  make_ready(group, channel, true)
end

-- A running task whose attempt will not end (its lease ran out, or its instance started again
-- after an unclean stop) goes back to waiting, or to the dead letters after its last attempt: the
-- attempt counts, as a crash does. `why` names the cause, '%s' standing for the attempt's owner.
local function abandon(id, why, now, max_attempts, channel)
  redis.call('ZREM', base .. ':running', id)
  local group, attempt, holder = unpack(redis.call('HMGET', task_key(id), 'group', 'attempt', 'owner'))
  local err = 'attempt ' .. attempt .. ' did not end: ' .. string.format(why, tostring(holder))
  if tonumber(attempt) >= tonumber(max_attempts) then
    bury(id, group, err, now, channel, holder)
  else
    requeue(id, group, err, channel, holder)
  end
end

-- The reply of a take that started task `id`.
local function started(id, group, now)
  local payload, submitted, err, attempt, token = unpack(redis.call('HMGET', task_key(id), 'payload', 'submitted',
    'error', 'attempt', 'token'))
  return {1, id, group, payload or '', tonumber(attempt), tonumber(submitted), err or '', now, tonumber(token)}
end

-- Starts the next task of the group that has waited longest for owner id `owner`, after giving back
-- the tasks whose lease ran out (buried instead when that was their last attempt) and readying the
-- groups whose retry is due. Returns {1, id, group, payload, attempt, submitted ms, last error,
-- now ms, fencing token} when a task starts; {0, ms until the next lease or retry falls due, -1
-- when none}; nothing starts while the queue is paused. A take by an owner that holds a task already is this take sent again: it answers
-- with that task, as the first did, and starts nothing (its lease and attempt stay as they are).
local function take_next(owner, lease_ms, max_attempts, channel)
  local now, now_us = clock()
  local running = base .. ':running'
  local delayed = base .. ':delayed'
  local owners = base .. ':owners'
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', running, '-inf', now, 'LIMIT', 0, 16)) do
    abandon(id, 'its lease ran out (%s stopped renewing it)', now, max_attempts, channel)
  end
  for _, group in ipairs(redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 16)) do
    redis.call('ZREM', delayed, group)
    make_ready(group, channel, true)
  end

  local again = redis.call('HGET', owners, owner)
  if again then
    return started(again, redis.call('HGET', task_key(again), 'group'), now)
  end

  -- a paused queue starts nothing; a paused group is never in :ready (see make_ready)
  local halted = redis.call('EXISTS', base .. ':paused-queue') == 1
  for _ = 1, halted and 0 or 16 do
    local group = redis.call('LPOP', base .. ':ready')
    if not group then
      break
    end
    local id = redis.call('LINDEX', group_key(group), 0)
    if id then
      local task = task_key(id)
      redis.call('HINCRBY', task, 'attempt', 1)
      redis.call('HSET', task, 'state', 'RUNNING', 'owner', owner, 'token', now_us)
      redis.call('HSET', owners, owner, id)
      redis.call('ZADD', running, now + tonumber(lease_ms), id)
      -- the count leaves Redis at zero, so a drained queue leaves nothing behind
      if redis.call('DECR', base .. ':queued') <= 0 then
        redis.call('DEL', base .. ':queued')
      end
      return started(id, group, now)
    end
  end

  local next_due = -1
  local lease = redis.call('ZRANGE', running, 0, 0, 'WITHSCORES')
  if lease[2] then
    next_due = tonumber(lease[2]) - now
  end
  local retry = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if retry[2] and (next_due == -1 or tonumber(retry[2]) - now < next_due) then
    next_due = tonumber(retry[2]) - now
  end
  if next_due ~= -1 and next_due < 0 then
    next_due = 0
  end
  return {0, next_due}
end
