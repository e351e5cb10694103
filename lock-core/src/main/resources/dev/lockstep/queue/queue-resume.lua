-- Resumes a paused queue, or a paused group (see queue-pause.lua); idle workers are woken. A
-- resumed group that was waiting for a worker when paused, or became ready since, waits at the
-- front of the groups ready: it has waited longest.
-- ARGV[1] 'queue' or 'group', ARGV[2] the group ('' for the queue), ARGV[3] wake-up channel,
-- ARGV[4] the call's id, ARGV[5] ms its answer is kept (see once_per_call)
-- Returns 1, or 0 when it was not paused.
local function resume()
  if ARGV[1] == 'queue' then
    if redis.call('HDEL', base .. ':owners', PAUSED_QUEUE) == 0 then
      return 0
    end
    -- a wake-up for each group waiting (up to 100), so that as many idle workers start at once as
    -- groups wait, rather than one, whose task's end would wake the next
    wake_if_idle(ARGV[3], math.max(1, math.min(redis.call('LLEN', base .. ':ready'), 100)))
    return 1
  end
  local group = ARGV[2]
  if redis.call('SREM', base .. ':paused', group) == 0 then
    return 0
  end
  if redis.call('HINCRBY', base .. ':owners', PAUSED_GROUPS, -1) <= 0 then
    redis.call('HDEL', base .. ':owners', PAUSED_GROUPS)
  end
  if redis.call('LREM', base .. ':held', 1, group) == 1 then
    make_ready(group, ARGV[3], true)
  end
  return 1
end
return once_per_call(ARGV[4], ARGV[5], resume)
