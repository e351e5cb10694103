-- Read-only views of a queue.
-- ARGV[1] 'stats': returns {queued, running, dead, groups waiting}
-- ARGV[1] 'task', ARGV[2] id: returns {{id, group, state, attempt, submitted ms, error}} or {{id}}
-- ARGV[1] 'dead', ARGV[2] max: the oldest dead tasks, each as above
if ARGV[1] == 'stats' then
  return {tonumber(redis.call('GET', base .. ':queued') or '0'), redis.call('ZCARD', base .. ':running'),
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
