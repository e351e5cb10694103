-- Stores a task at the end of its group.
-- ARGV[1] task id, ARGV[2] group, ARGV[3] payload (JSON), ARGV[4] deduplication id ('' for none),
-- ARGV[5] deduplication window ms, ARGV[6] wake-up channel
-- Returns {1, id} when stored; {0, id of the stored task} when the deduplication id is taken within
-- the window, or the task is stored already (a submit sent again after a reconnect).
local id = ARGV[1]
local dedup = ARGV[4]
if dedup ~= '' then
  local existing = redis.call('GET', base .. ':d:' .. dedup)
  if existing then
    return {0, existing}
  end
end
if redis.call('EXISTS', task_key(id)) == 1 then
  return {0, id}
end
local now = now_ms()
-- no state (QUEUED), attempt (0) or error (none) until the task first starts
if dedup ~= '' then
  redis.call('HSET', task_key(id), 'group', ARGV[2], 'payload', ARGV[3], 'submitted', now, 'dedup', dedup)
  redis.call('SET', base .. ':d:' .. dedup, id, 'PX', ARGV[5])
else
  redis.call('HSET', task_key(id), 'group', ARGV[2], 'payload', ARGV[3], 'submitted', now)
end
redis.call('INCR', base .. ':queued')
if redis.call('RPUSH', group_key(ARGV[2]), id) == 1 and make_ready(ARGV[2], false, false) then
  wake_if_idle(ARGV[6])
end
return {1, id}
