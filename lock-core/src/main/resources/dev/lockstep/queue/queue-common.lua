-- Shared by the queue scripts; loaded first. Every key of queue Q starts with KEYS[1], the queue's
-- base '<prefix>{queue:Q}', so all of a queue's keys share one hash slot:
--   :ready    list of groups whose next task may start now, each at most once, longest waiting first
--   :delayed  zset group -> when its failed task may be retried (ms, server clock)
--   :running  zset task id -> when its lease runs out (ms, server clock)
--   :dead     zset task id -> when it died
--   :queued   count of queued tasks (no key when zero)
--   :g:<group> list of the group's task ids in order; the head is the one running or retried next
--   :t:<id>   hash: the task (group, payload, state, attempt, submitted, error, owner, token (the
--             server clock in microseconds when its latest attempt started), ended, dedup; a task
--             never started holds only group, payload, submitted and its dedup if it has one:
--             no state stands for QUEUED, no attempt for 0, no error for none,
--             and 'ended:<owner id>' = '<finish|fail|release>:<reply>' for each owner whose end of
--             the task was recorded)
--   :d:<deduplication id> the task id, for the deduplication window
--   :owners   hash owner id -> task id, for each running task (the owner of its take): a take sent
--             again under the same owner id (its reply lost, the client sent it again) finds the
--             task the first one started, rather than start a second one nobody runs. Two more
--             fields, read by every take in the same HMGET as its owner id (owner ids always hold
--             a ':', these never do): '~paused' = '1' while the whole queue is paused (takes start
--             nothing; leases and retries falling due are still handled); '~paused-groups' = how
--             many groups are paused (no field at zero), so that readying a group looks it up in
--             :paused only while some group is paused
--   :idle     while a worker may be waiting idle, the instance id of the worker that went idle
--             last ('1' from earlier versions): a take that finds nothing sets it to expire after
--             the longest an idle worker waits before it looks again, so that a finish or a submit
--             wakes a worker only while one may be idle, rather than with every task. The wake-up
--             (PUBLISH, which every instance hears) names that instance: it wakes a worker at once,
--             the others only if no woken take of that instance answers it first (see
--             woken_take), so that one worker rather than one per instance looks for the group,
--             and a dead or stalled instance still holds no group up for long
--   :paused   set of paused groups (see queue-pause.lua): their tasks keep their order, no worker
--             starts one until the group is resumed
--   :held     list of paused groups whose next task could start (a paused group's place instead
--             of :ready), each at most once
--   :call:<id> the answer of a pause or resume, kept for as long as Lettuce may send it again
-- A group with tasks is in exactly one of :ready, :held, :delayed, or running (its head task in
-- :running); a paused group is never in :ready.
local base = KEYS[1]

-- the fields of :owners that are not owner ids (see above)
local PAUSED_QUEUE = '~paused'
local PAUSED_GROUPS = '~paused-groups'

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
-- takes a task itself right after (channel false) and wakes them only if work is left then, or
-- wakes them only if one may be idle (channel false, then wake_if_idle).
-- `pauses` is how many groups are paused when the caller has read it (see :owners), else nil.
-- Returns the number of groups waiting for a worker after it, or nil when the group is paused.
local function make_ready(group, channel, front, pauses)
  if (pauses == nil or pauses > 0) and redis.call('SISMEMBER', base .. ':paused', group) == 1 then
    -- paused: it waits aside, no worker is woken; resuming it readies it (queue-resume.lua)
    redis.call('RPUSH', base .. ':held', group)
    return nil
  end
  local waiting
  if front then
    waiting = redis.call('LPUSH', base .. ':ready', group)
  else
    waiting = redis.call('RPUSH', base .. ':ready', group)
  end
  if channel then
    redis.call('PUBLISH', channel, group)
  end
  return waiting
end

-- A pause, resume, redrive or discard sent again by Lettuce after a reconnect (its reply lost) must
-- not act again and must answer what the first did: by then another operator may have undone what
-- the first did, or the redriven task died again (a second redrive would run it twice), and a
-- redrive or discard that worked would answer "not dead". Each carries an id, and its answer is
-- kept under :call:<id> for as long as it may be sent again.
-- Returns what `act` answers, run once per call `id`: its answer is kept for `keep_ms`, and the
-- call sent again answers with it and does nothing.
local function once_per_call(id, keep_ms, act)
  local answered = redis.call('GET', base .. ':call:' .. id)
  if answered then
    return tonumber(answered)
  end
  local answer = act()
  redis.call('SET', base .. ':call:' .. id, answer, 'PX', keep_ms)
  return answer
end

-- The first byte of the messages on a queue's channel that say something to the workers of one
-- instance, followed by a letter and that instance's id: a byte that UTF-8 text never holds, so that
-- no group name (other messages carry one, as earlier versions' wake-ups did) reads as one of them.
local SIGNAL = '\255'

-- Wakes a worker, or `count` of them (default 1), if one may be idle (see :idle): the wake-up
-- SIGNAL 'w' <instance id> names the instance of the worker that went idle last ('' for a mark of
-- an earlier version: every instance wakes one).
local function wake_if_idle(channel, count)
  local idle = redis.call('GET', base .. ':idle')
  if idle then
    local message = (idle == '1') and '' or (SIGNAL .. 'w' .. idle)
    for _ = 1, count or 1 do
      redis.call('PUBLISH', channel, message)
    end
  end
end

-- The instance id in an owner id '<instance id>:<run>:<sequence>' (an instance id holds no ':').
local function instance_of(owner)
  return string.match(owner, '^[^:]+')
end

-- Marks that the worker of `owner`, whose take found nothing, may wait idle for up to `idle_ms`
-- from now (see :idle).
local function mark_idle(owner, idle_ms)
  redis.call('SET', base .. ':idle', instance_of(owner), 'PX', idle_ms)
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
local function end_of(holder, recorded, owner, kind)
  if holder == owner then
    return 'holds'
  end
  local reply = recorded and string.match(recorded, '^' .. kind .. ':(%d+)$')
  if reply then
    return 'ended', tonumber(reply)
  end
  return nil
end

local function owner_of(task, owner, kind)
  local holder, recorded = unpack(redis.call('HMGET', task, 'owner', 'ended:' .. owner))
  return end_of(holder, recorded, owner, kind)
end

-- The start of a failure or a release by the owner of a running task: nil, and the answer to give,
-- when `owner` holds it no longer (or its end of this kind was recorded: a call sent again); else
-- the task is out of :running, and its group and attempt are answered.
local function end_attempt(id, owner, kind)
  local held, reply = owner_of(task_key(id), owner, kind)
  if held ~= 'holds' then
    return nil, reply or 0
  end
  redis.call('ZREM', base .. ':running', id)
  local group, attempt = unpack(redis.call('HMGET', task_key(id), 'group', 'attempt'))
  return group, tonumber(attempt)
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

-- Gives back the running tasks whose lease ran out (buried instead when that was their last
-- attempt) and readies the groups whose retry is due, up to 16 of each.
local function sweep(now, max_attempts, channel)
  local delayed = base .. ':delayed'
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', base .. ':running', '-inf', now, 'LIMIT', 0, 16)) do
    abandon(id, 'its lease ran out (%s stopped renewing it)', now, max_attempts, channel)
  end
  for _, group in ipairs(redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 16)) do
    redis.call('ZREM', delayed, group)
    make_ready(group, channel, true)
  end
end

-- What a take reads of :owners in one call: the task `owner` holds already (a take sent again),
-- whether the queue is paused, and how many groups are paused (see :owners).
local function take_state(owner)
  local again, halted, pauses = unpack(redis.call('HMGET', base .. ':owners', owner, PAUSED_QUEUE, PAUSED_GROUPS))
  return {again = again, halted = halted ~= false, pauses = tonumber(pauses or '0')}
end

-- Starts task `id`, the head of `group`, for `owner`: its attempt counts, its lease runs from now,
-- its fencing token is the server clock in microseconds. Returns the take's reply.
local function start(id, group, owner, lease_ms, now, now_us)
  local task = task_key(id)
  local payload, submitted, err, attempt = unpack(redis.call('HMGET', task, 'payload', 'submitted', 'error', 'attempt'))
  attempt = tonumber(attempt or '0') + 1
  redis.call('HSET', task, 'attempt', attempt, 'state', 'RUNNING', 'owner', owner, 'token', now_us)
  redis.call('HSET', base .. ':owners', owner, id)
  redis.call('ZADD', base .. ':running', now + tonumber(lease_ms), id)
  -- the count leaves Redis at zero, so a drained queue leaves nothing behind
  if redis.call('DECR', base .. ':queued') <= 0 then
    redis.call('DEL', base .. ':queued')
  end
  return {1, id, group, payload or '', attempt, tonumber(submitted), err or '', now, tonumber(now_us)}
end

-- The reply of a take sent again: the task its first sending started, as it answered then.
local function started_again(id, now)
  local group, payload, submitted, err, attempt, token = unpack(redis.call('HMGET', task_key(id), 'group', 'payload',
    'submitted', 'error', 'attempt', 'token'))
  return {1, id, group, payload or '', tonumber(attempt), tonumber(submitted), err or '', now, tonumber(token)}
end

-- Ms until the next lease or retry falls due (0: due now), or -1 when none will.
local function next_due(now)
  local due = -1
  local lease = redis.call('ZRANGE', base .. ':running', 0, 0, 'WITHSCORES')
  if lease[2] then
    due = tonumber(lease[2]) - now
  end
  local retry = redis.call('ZRANGE', base .. ':delayed', 0, 0, 'WITHSCORES')
  if retry[2] and (due == -1 or tonumber(retry[2]) - now < due) then
    due = tonumber(retry[2]) - now
  end
  if due ~= -1 and due < 0 then
    due = 0
  end
  return due
end

-- Pops the groups waiting for a worker until one has a head task (up to 16): that task and its
-- group, or nil; `waiting` is how many groups wait before it (nil: not known), returned less
-- those popped.
local function pop_ready(waiting)
  for _ = 1, 16 do
    local group = redis.call('LPOP', base .. ':ready')
    if not group then
      return nil, nil, 0
    end
    waiting = waiting and waiting - 1
    local id = redis.call('LINDEX', group_key(group), 0)
    if id then
      return id, group, waiting
    end
  end
  return nil, nil, waiting
end

-- Starts the next task of the group that has waited longest for owner id `owner`. With `swept`
-- true the leases and retries that fell due are handled first (see sweep); the workers ask for
-- that now and then rather than on every take, and a take that finds no group waiting handles
-- them anyway when one is due, and looks again. `state` is what take_state read for `owner`
-- (after any sweep), `now` and `now_us` the server clock, `waiting` how many groups wait for a
-- worker (nil: not known). Returns {1, id, group, payload, attempt, submitted ms, last error, now
-- ms, fencing token} when a task starts; {0, ms until the next lease or retry falls due, -1 when
-- none}; nothing starts while the queue is paused. A take by an owner that holds a task already
-- is this take sent again: it answers with that task, as the first did, and starts nothing (its
-- lease and attempt stay as they are). The second value returned is how many groups still wait
-- for a worker (nil: not known).
local function take_from(owner, lease_ms, max_attempts, channel, swept, state, now, now_us, waiting)
  if state.again then
    return started_again(state.again, now), waiting
  end
  if not state.halted then
    local id, group, left = pop_ready(waiting)
    if id then
      return start(id, group, owner, lease_ms, now, now_us), left
    end
  end
  local due = next_due(now)
  if due == 0 and not swept then
    sweep(now, max_attempts, channel)
    return take_from(owner, lease_ms, max_attempts, channel, true, take_state(owner), now, now_us, nil)
  end
  return {0, due}, 0
end

-- A take by a worker woken by a wake-up (queue-take.lua): a wake-up may wake a worker on more than
-- one instance (see :idle), and as many should start a task as groups wait, not more. So it starts
-- the next task of the group that has waited longest, as take_from does; but when no group waits
-- (another worker took it first) or the queue is paused it starts nothing, cheaply: no clock, no
-- look for leases or retries that fell due, no idle mark (the worker waits on as it was, its timers
-- and its idle mark set by the take that found nothing before). Either way it tells the other
-- instances on `channel` that this instance answered a wake-up: SIGNAL 't' <instance id> when it
-- started a task (a wake-up for it need not wake a worker elsewhere), SIGNAL 'n' when it found
-- nothing (no group readied before it waits, so none of the wake-ups for it need; not said when
-- it gave up after stale entries of :ready, which the groups' invariants rule out). Returns
-- take_from's reply, or {0, -2} when it started nothing. Sent again under the same owner id, it
-- answers as the first did, and tells nobody.
local function woken_take(owner, lease_ms, channel)
  local state = take_state(owner)
  if state.again then
    return started_again(state.again, now_ms())
  end
  local id, group, left
  if not state.halted then
    id, group, left = pop_ready(nil)
  end
  if id then
    redis.call('PUBLISH', channel, SIGNAL .. 't' .. instance_of(owner))
  elseif state.halted or left == 0 then
    redis.call('PUBLISH', channel, SIGNAL .. 'n' .. instance_of(owner))
  end
  if not id then
    return {0, -2}
  end
  local now, now_us = clock()
  return (start(id, group, owner, lease_ms, now, now_us))
end

-- A take (queue-take.lua, and the take in the same step as a finish): see take_from; `sweeping`
-- true handles the leases and retries that fell due first. A take that starts nothing marks that
-- its worker may wait idle for up to `idle_ms` from now (see :idle).
local function take_next(owner, lease_ms, max_attempts, channel, sweeping, now, now_us, idle_ms)
  if sweeping then
    sweep(now, max_attempts, channel)
  end
  local taken = take_from(owner, lease_ms, max_attempts, channel, sweeping, take_state(owner), now, now_us, nil)
  if taken[1] == 0 then
    mark_idle(owner, idle_ms)
  end
  return taken
end
