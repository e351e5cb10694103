-- Decides whether this instance runs one firing of a guarded job and, if so, takes the job's
-- guard. Loaded after the lock scripts' shared functions (handoff.lua). Times are the Redis
-- server's. A cron firing is identified by its slot (the scheduled time the cron gave), so
-- instances agree on it whatever their clocks say; each slot runs once. Among the instances
-- seen alive, the one that ran least recently is chosen for a slot, so runs rotate instead of
-- landing on whichever clock runs earliest. (The member heartbeat keeps these keys' expiry.)
-- KEYS[1] guard (lock value '<instance>:<sequence>:<token>' with a PX lease), KEYS[2] state hash,
-- KEYS[3] slots that ran (zset, member '<slot>:<instance>', score slot), KEYS[4] instances seen
-- (instance -> last seen ms), KEYS[5] instances' last run start (instance -> ms)
-- ARGV[1] instance, ARGV[2] owner id ('<instance>:<sequence>'), ARGV[3] lease ms (lockAtMostFor),
-- ARGV[4] slot ms ('' when the firing has none), ARGV[5] 'first' or 'takeover' (run an unclaimed
-- slot left to another instance), ARGV[6] liveness window ms, ARGV[7] slots kept
-- Returns {1, token, start ms} to run; {0, reason} to skip; {2, instance} when the slot is left to that instance.
local now_parts = redis.call('TIME')
local now_us = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local now = math.floor(now_us / 1000)
local instance, slot = ARGV[1], ARGV[4]

local function record_skip(reason)
  redis.call('HSET', KEYS[2], 'skip.instance', instance, 'skip.at', now, 'skip.reason', reason, 'skip.slot', slot)
end

local current = redis.call('GET', KEYS[1])
if current then
  local holder, token = holder_of(current)
  if holder == ARGV[2] then
    -- the same claim once more (a command replayed after a reconnect): the run is this caller's
    return {1, token, tonumber(redis.call('HGET', KEYS[2], 'run.start')) or now}
  end
  record_skip('held by ' .. string.match(current, '^([^:]+)'))
  return {0, 'held by ' .. string.match(current, '^([^:]+)')}
end
if slot ~= '' then
  local ran = redis.call('ZRANGEBYSCORE', KEYS[3], slot, slot)
  if #ran > 0 then
    local reason = 'slot already ran on ' .. string.match(ran[1], ':(.*)$')
    record_skip(reason)
    return {0, reason}
  end
end

if slot ~= '' and ARGV[5] == 'first' then
  local chosen
  if redis.call('HGET', KEYS[2], 'elect.slot') == slot then
    chosen = redis.call('HGET', KEYS[2], 'elect.instance')
  else
    local alive_since = now - tonumber(ARGV[6])
    local seen = redis.call('HGETALL', KEYS[4])
    local best_run
    for i = 1, #seen, 2 do
      local candidate, last_seen = seen[i], tonumber(seen[i + 1])
      if last_seen >= alive_since then
        local last_run = tonumber(redis.call('HGET', KEYS[5], candidate) or '0')
        if not chosen or last_run < best_run or (last_run == best_run and candidate < chosen) then
          chosen, best_run = candidate, last_run
        end
      elseif last_seen < alive_since - 10 * tonumber(ARGV[6]) then
        redis.call('HDEL', KEYS[4], candidate)
        redis.call('HDEL', KEYS[5], candidate)
      end
    end
    chosen = chosen or instance
    redis.call('HSET', KEYS[2], 'elect.slot', slot, 'elect.instance', chosen)
  end
  if chosen ~= instance then
    record_skip('left to ' .. chosen .. ', which ran least recently')
    return {2, chosen}
  end
end

if slot ~= '' then
  redis.call('ZADD', KEYS[3], slot, slot .. ':' .. instance)
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[7]) + 1))
end
-- the guard is a fresh key each run, so the clock alone makes its token larger than the last run's
redis.call('SET', KEYS[1], ARGV[2] .. ':' .. format_token(now_us), 'PX', ARGV[3])
redis.call('HSET', KEYS[5], instance, now)
redis.call('HSET', KEYS[2], 'run.start', now)
return {1, now_us, now}
