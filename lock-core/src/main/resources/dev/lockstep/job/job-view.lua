-- Reads what the other job scripts recorded, for the monitoring views (JobGuardRegistry); writes nothing.
-- KEYS[1] state, KEYS[2] history, KEYS[3] members, KEYS[4] slots (one hash tag: {job:<name>})
-- ARGV[1] what to read:
--   'state'     the state hash (HGETALL: the last skip's fields)
--   'history'   the runs recorded, newest first, up to index ARGV[2]
--   'members'   the members hash (HGETALL)
--   'elections' the newest ARGV[2] slot records ('<slot>:e:<chosen>', '<slot>:r:<who ran it>')
--   'next'      {the slot records of slot ARGV[2], the members hash}: the next slot's election, or its candidates
local what = ARGV[1]
if what == 'state' then
  return redis.call('HGETALL', KEYS[1])
elseif what == 'history' then
  return redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[2]))
elseif what == 'members' then
  return redis.call('HGETALL', KEYS[3])
elseif what == 'elections' then
  return redis.call('ZREVRANGE', KEYS[4], 0, tonumber(ARGV[2]))
elseif what == 'next' then
  return { redis.call('ZRANGEBYSCORE', KEYS[4], ARGV[2], ARGV[2]), redis.call('HGETALL', KEYS[3]) }
end
return redis.error_reply('job-view.lua: unknown read ' .. tostring(what))
