-- Read-only views of a queue. In every view a task whose lease ran out (its instance stopped or
-- stalled) is queued, not running, and its group waits for a worker, until a worker takes it
-- back; a lease ending this very millisecond has run out, as it has for queue-take.lua.
-- ARGV[1] 'stats': returns {queued, running, dead, groups waiting}
-- ARGV[1] 'task', ARGV[2] id: returns {{id, group, state, attempt, submitted ms, error}} or {{id}}
-- ARGV[1] 'dead', ARGV[2] max: the oldest dead tasks, each as above
-- ARGV[1] 'groups', ARGV[2] max: the groups of up to max running tasks, up to max whose running
--   task's lease ran out and up to max waiting for a worker, each {group, queued tasks (not
--   counting a running one), 1 if running else 0}
-- ARGV[1] 'paused': returns {1 if the queue is paused else 0, {paused groups, sorted}}
-- ARGV[1] 'backlog', ARGV[2] max: returns {groups waiting for a retry, of them those whose retry is
--   due now, ms until the next retry falls due (-1: none), submitted ms of the oldest task not yet
--   done (queued, waiting for a retry or running; -1: none), 1 if every group was read else 0};
--   it reads up to max groups from each of :ready, :held, :delayed and :running, and the first two
--   tasks of each (a group's oldest task, unless redrives put an older one further back)
local running = base .. ':running'
local now = now_ms()
-- the scores of live leases: later than now
local live = string.format('(%.0f', now)
if ARGV[1] == 'groups' then
  local max = tonumber(ARGV[2])
  local seen = {}
  local out = {}
  local function add(group, is_running)
    if not seen[group] then
      seen[group] = true
      local length = redis.call('LLEN', group_key(group))
      out[#out + 1] = {group, is_running and length - 1 or length, is_running and 1 or 0}
    end
  end
  local function add_groups_of(ids, is_running)
    for _, id in ipairs(ids) do
      local group = redis.call('HGET', task_key(id), 'group')
      if group then
        add(group, is_running)
      end
    end
  end
  add_groups_of(redis.call('ZRANGEBYSCORE', running, live, '+inf', 'LIMIT', 0, max), true)
  -- a group whose running task's lease ran out waits for a worker to take that task back
  add_groups_of(redis.call('ZRANGEBYSCORE', running, '-inf', now, 'LIMIT', 0, max), false)
  for _, group in ipairs(redis.call('LRANGE', base .. ':ready', 0, max - 1)) do
    add(group, false)
  end
  return out
end
if ARGV[1] == 'paused' then
  local groups = redis.call('SMEMBERS', base .. ':paused')
  table.sort(groups)
  return {redis.call('HEXISTS', base .. ':owners', PAUSED_QUEUE), groups}
end
if ARGV[1] == 'backlog' then
  local max = tonumber(ARGV[2])
  local delayed = base .. ':delayed'
  local retries = redis.call('ZCARD', delayed)
  local due = redis.call('ZCOUNT', delayed, '-inf', now)
  local next_retry = -1
  local first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if first[2] then
    next_retry = math.max(0, tonumber(first[2]) - now)
  end
  local oldest = -1
  local complete = 1
  -- a group's oldest task is its head, or a task redriven right behind its running head
  -- (several redrives can put an older one further back: not read)
  local function look(groups, total)
    if total > #groups then
      complete = 0
    end
    for _, group in ipairs(groups) do
      for _, id in ipairs(redis.call('LRANGE', group_key(group), 0, 1)) do
        local submitted = tonumber(redis.call('HGET', task_key(id), 'submitted'))
        if submitted and (oldest == -1 or submitted < oldest) then
          oldest = submitted
        end
      end
    end
  end
  -- a group with tasks is in exactly one of :ready, :held, :delayed, or running its head task
  look(redis.call('LRANGE', base .. ':ready', 0, max - 1), redis.call('LLEN', base .. ':ready'))
  look(redis.call('LRANGE', base .. ':held', 0, max - 1), redis.call('LLEN', base .. ':held'))
  look(redis.call('ZRANGE', delayed, 0, max - 1), retries)
  local groups = {}
  for _, id in ipairs(redis.call('ZRANGE', running, 0, max - 1)) do
    local group = redis.call('HGET', task_key(id), 'group')
    if group then
      groups[#groups + 1] = group
    end
  end
  look(groups, #groups)
  if redis.call('ZCARD', running) > max then
    complete = 0
  end
  return {retries, due, next_retry, oldest, complete}
end
if ARGV[1] == 'stats' then
  local leased = redis.call('ZCOUNT', running, live, '+inf')
  local lapsed = redis.call('ZCARD', running) - leased
  return {tonumber(redis.call('GET', base .. ':queued') or '0') + lapsed, leased,
    redis.call('ZCARD', base .. ':dead'), redis.call('LLEN', base .. ':ready') + lapsed}
end
local ids
if ARGV[1] == 'dead' then
  ids = redis.call('ZRANGE', base .. ':dead', 0, tonumber(ARGV[2]) - 1)
else
  ids = {ARGV[2]}
end
local out = {}
for i, id in ipairs(ids) do
  local group, state, attempt, submitted, err = unpack(redis.call('HMGET', task_key(id), 'group', 'state', 'attempt',
    'submitted', 'error'))
  if group then
    -- a task never started holds no state, attempt or error (see :t:<id> in queue-common.lua)
    state = state or 'QUEUED'
    if state == 'RUNNING' and tonumber(redis.call('ZSCORE', running, id) or '0') <= now then
      state = 'QUEUED'
    end
    out[i] = {id, group, state, attempt or '0', submitted, err or ''}
  else
    out[i] = {id}
  end
end
return out
