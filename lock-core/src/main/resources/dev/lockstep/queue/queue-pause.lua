-- Pauses the whole queue, or one of its groups. A paused queue's takes start nothing; a paused
-- group's tasks keep their order and no worker starts one: the group waits in :held rather than
-- :ready (see make_ready in queue-common.lua). A task running now runs to its end.
-- ARGV[1] 'queue' or 'group', ARGV[2] the group ('' for the queue), ARGV[3] the call's id, ARGV[4]
-- ms its answer is kept (see once_per_call)
-- Returns 1, or 0 when it was paused already.
local function pause()
  if ARGV[1] == 'queue' then
    return redis.call('HSETNX', base .. ':owners', PAUSED_QUEUE, '1')
  end
  local group = ARGV[2]
  if redis.call('SADD', base .. ':paused', group) == 0 then
    return 0
  end
  redis.call('HINCRBY', base .. ':owners', PAUSED_GROUPS, 1)
  if redis.call('LREM', base .. ':ready', 1, group) == 1 then
    redis.call('RPUSH', base .. ':held', group)
  end
  return 1
end
return once_per_call(ARGV[3], ARGV[4], pause)
