-- Shared by the queue scripts; loaded first. Every key of queue Q starts with KEYS[1], the queue's
-- base '<prefix>{queue:Q}', so all of a queue's keys share one hash slot:
--   :ready    list of groups whose next task may start now, each at most once, longest waiting first
--   :delayed  zset group -> when its failed task may be retried (ms, server clock)
--   :running  zset task id -> when its lease runs out (ms, server clock)
--   :dead     zset task id -> when it died
--   :queued   count of queued tasks
--   :g:<group> list of the group's task ids in order; the head is the one running or retried next
--   :t:<id>   hash: the task (group, payload, state, attempt, submitted, error, owner, ended, dedup)
--   :d:<deduplication id> the task id, for the deduplication window
-- A group with tasks is in exactly one of :ready, :delayed, or running (its head task in :running).
local base = KEYS[1]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function task_key(id)
  return base .. ':t:' .. id
end

local function group_key(group)
  return base .. ':g:' .. group
end

-- The group's next task may start: the group joins the groups waiting for a worker (at the front
-- when its head task has had its turn already), and idle workers are woken.
local function make_ready(group, channel, front)
  if front then
    redis.call('LPUSH', base .. ':ready', group)
  else
    redis.call('RPUSH', base .. ':ready', group)
  end
  redis.call('PUBLISH', channel, group)
end

-- A task leaves its group (done or dead): the group's next task, if any, may start.
local function leave_group(group, id, channel)
  local key = group_key(group)
  redis.call('LREM', key, 1, id)
  if redis.call('LLEN', key) > 0 then
    make_ready(group, channel, false)
  end
end

-- Moves a task to the dead letters, keeping its payload for a redrive; its group goes on.
local function bury(id, group, err, now, channel)
  redis.call('HSET', task_key(id), 'state', 'DEAD', 'error', err, 'ended', now)
  redis.call('HDEL', task_key(id), 'owner')
  redis.call('ZADD', base .. ':dead', now, id)
  leave_group(group, id, channel)
end

-- A task goes back to waiting (a retry due now, a lease that ran out, a task given back).
local function requeue(id, group, err, channel)
  redis.call('HSET', task_key(id), 'state', 'QUEUED', 'error', err)
  redis.call('HDEL', task_key(id), 'owner')
  redis.call('INCR', base .. ':queued')
  make_ready(group, channel, true)
end
