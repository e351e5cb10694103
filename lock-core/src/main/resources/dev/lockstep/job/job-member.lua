-- Marks an instance as alive for a guarded job (it may be chosen to run the next slot), keeps the
-- job's records for the retention time and prunes what the claims no longer need: slot records
-- older than the horizon (job-claim.lua never runs such a slot) and instances neither seen nor
-- elected nor firing for ten liveness windows. Or, when the instance shuts down, marks it gone
-- (no longer a candidate; its rotation record stays, for a restart).
-- Instances may be given different horizons (lockstep.job-guard.skew-tolerance), so the highest cutoff
-- any of them pruned below is kept in the members hash ('pruned'): job-claim.lua runs no slot
-- below it, whatever its own horizon, as that slot's records may be gone.
-- KEYS[1] members hash (see job-claim.lua), KEYS[2] slots, KEYS[3..] the job's other record keys
-- An instance whose membership was recorded before (ARGV[6] '1') and is gone takes it as Redis
-- having lost the job's records (or pruned it, stopped for ten liveness windows): the first to
-- notice records in 'lost' the slot up to which none runs, now plus three skew tolerances (see
-- job-claim.lua).
-- ARGV[1] instance, ARGV[2] 'join' or 'leave', ARGV[3] retention ms, ARGV[4] liveness window ms,
-- ARGV[5] horizon ms, ARGV[6] '1' when this instance's membership was recorded before, ARGV[7] skew
-- tolerance ms
-- Returns 1.
if ARGV[2] == 'leave' then
  redis.call('HDEL', KEYS[1], 'seen:' .. ARGV[1])
  return 1
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('HSET', KEYS[1], 'seen:' .. ARGV[1], now) == 1 and ARGV[6] == '1' then
  -- the first to notice a loss sets 'lost' (the loss took the one before with it)
  redis.call('HSETNX', KEYS[1], 'lost', now + 3 * tonumber(ARGV[7]))
end
local cutoff = now - tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. cutoff)
-- an instance is gone when it was not seen, nor fired, nor elected for ten liveness windows
local gone_before = now - 10 * tonumber(ARGV[4])
local members = redis.call('HGETALL', KEYS[1])
local last = {}
local pruned
for i = 1, #members, 2 do
  local who = string.match(members[i], '^%a+:(.*)$')
  if who then
    last[who] = math.max(last[who] or 0, tonumber(members[i + 1]))
  elseif members[i] == 'pruned' then
    pruned = tonumber(members[i + 1])
  end
end
if not pruned or pruned < cutoff then
  redis.call('HSET', KEYS[1], 'pruned', cutoff)
end
for who, at in pairs(last) do
  if at < gone_before then
    redis.call('HDEL', KEYS[1], 'seen:' .. who, 'fired:' .. who, 'elected:' .. who)
  end
end
for i = 1, #KEYS do
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return 1
