-- An idle worker woken by a wake-up asks whether to take: every instance hears a wake-up and wakes
-- a worker for it, and as many workers should take as groups wait for one, not more. A worker may
-- take while fewer workers are on their way to take (:claims, counted here and given back by their
-- takes, see claimed_take in queue-common.lua) than groups wait (:ready); it then counts itself.
-- :claims expires 2 s after its first claim, so a claim whose take never came (its worker
-- stopped, Redis failed) holds back nobody for longer, and the key never stays.
-- Returns 1 when the worker is to take, else 0 (it waits again).
local waiting = redis.call('LLEN', base .. ':ready')
if waiting == 0 then
  return 0
end
local claims = base .. ':claims'
if tonumber(redis.call('GET', claims) or '0') >= waiting then
  return 0
end
if redis.call('INCR', claims) == 1 then
  redis.call('PEXPIRE', claims, 2000)
end
return 1
