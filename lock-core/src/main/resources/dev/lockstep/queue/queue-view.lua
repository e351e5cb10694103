-- Read-only views of a queue.
-- ARGV[1] 'stats': returns {queued, running, dead, groups waiting}; a task whose lease ran out (its
--   instance stopped) counts as queued, not running, until a worker takes it back
-- ARGV[1] 'task', ARGV[2] id: returns {{id, group, state, attempt, submitted ms, error}} or {{id}}
-- ARGV[1] 'dead', ARGV[2] max: the oldest dead tasks, each as above
-- ARGV[1] 'groups', ARGV[2] max: the groups of up to max running tasks and up to max groups waiting
--   for a worker, each {group, queued tasks (not counting a running one), 1 if running else 0}
if ARGV[1] == 'groups' then
  local max = tonumber(ARGV[2])
  local seen = {}
  local out = {}
  local function add(group, running)
    if not seen[group] then
      seen[group] = true
      local length = redis.call('LLEN', group_key(group))
      out[#out + 1] = {group, running and length - 1 or length, running and 1 or 0}
    end
  end
  for _, id in ipairs(redis.call('ZRANGE', base .. ':running', 0, max - 1)) do
    local group = redis.call('HGET', task_key(id), 'group')
    if group then
      add(group, true)
    end
  end
  for _, group in ipairs(redis.call('LRANGE', base .. ':ready', 0, max - 1)) do
    add(group, false)
  end
  return out
end
if ARGV[1] == 'stats' then
  local running = base .. ':running'
  local leased = redis.call('ZCOUNT', running, string.format('(%.0f', now_ms()), '+inf')
  local lapsed = redis.call('ZCARD', running) - leased
  return {tonumber(redis.call('GET', base .. ':queued') or '0') + lapsed, leased,
    redis.call('ZCARD', base .. ':dead'), redis.call('LLEN', base .. ':ready')}
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
  if state then
    out[i] = {id, group, state, attempt, submitted, err or ''}
  else
    out[i] = {id}
  end
end
return out
