-- Decides whether this instance runs one firing of a guarded job and, if so, takes the job's
-- guard. Loaded after the shared lock-value functions (redis/lock-values.lua). Times are the Redis
-- server's. A cron firing is identified by its slot (the scheduled time the cron gave), so
-- instances agree on it whatever their clocks say; each slot runs once.
-- Each slot is elected once, by the first claim that reaches Redis, and the election is kept per
-- slot: an instance whose clock runs late and fires slot S while others already fire S + 1 still
-- reads S's own election. The chosen instance is, among the instances seen alive that have fired
-- the job lately, the one elected least recently, so runs rotate instead of landing on whichever
-- clock runs earliest, and an instance that has the job but never fires it is never chosen.
-- Slot records are kept for a horizon of server time, and a slot older than the horizon is never
-- run, so no clock, however late, can run a slot twice. (The member heartbeat keeps these keys.)
-- KEYS[1] guard (lock value '<instance>:<sequence>:<token>' with a PX lease), KEYS[2] state hash,
-- KEYS[3] slots decided (zset, member '<slot>:<instance that ran it>' or '<slot>:' when its chosen
-- instance skipped it because a run was in progress, score slot), KEYS[4] instances seen (instance
-- -> last seen ms), KEYS[5] instances' last election or run (instance -> ms), KEYS[6] elections
-- (zset, member '<slot>:<chosen instance>', score slot), KEYS[7] instances' last fired slot
-- ARGV[1] instance, ARGV[2] owner id ('<instance>:<sequence>'), ARGV[3] lease ms (lockAtMostFor),
-- ARGV[4] slot ms ('' when the firing has none), ARGV[5] 'first' or 'takeover' (run an unclaimed
-- slot left to another instance), ARGV[6] liveness window ms, ARGV[7] horizon ms
-- Returns {1, token, start ms} to run; {0, reason, now ms} to skip; {2, instance, now ms} when the
-- slot is left to that instance; {3, reason, now ms} to skip because another run holds the guard (a
-- takeover may retry). The caller compares the slot with the server's time to detect its clock's skew.
local now_parts = redis.call('TIME')
local now_us = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local now = math.floor(now_us / 1000)
local instance, slot = ARGV[1], ARGV[4]

local function record_skip(reason)
  redis.call('HSET', KEYS[2], 'skip.instance', instance, 'skip.at', now, 'skip.reason', reason, 'skip.slot', slot)
end

local function elected(s)
  local found = redis.call('ZRANGEBYSCORE', KEYS[6], s, s)
  if #found > 0 then
    return string.match(found[1], '^[^:]*:(.*)$')
  end
  return nil
end

if slot ~= '' then
  local horizon = now - tonumber(ARGV[7])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. horizon)
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', '(' .. horizon)
  if tonumber(slot) < horizon then
    local reason = 'slot is older than the history the guard keeps (' .. ARGV[7] .. ' ms): this clock is far behind'
    record_skip(reason)
    return {0, reason, now}
  end
  if ARGV[5] == 'first' then
    redis.call('HSET', KEYS[7], instance, slot)
  end
end

local current = redis.call('GET', KEYS[1])
if current then
  local holder, token = holder_of(current)
  if holder == ARGV[2] then
    -- the same claim once more (a command replayed after a reconnect): the run is this caller's
    return {1, token, tonumber(redis.call('HGET', KEYS[2], 'run.start')) or now}
  end
  local reason = 'held by ' .. string.match(current, '^([^:]+)')
  if slot ~= '' and ARGV[5] == 'first' and elected(slot) == instance
      and #redis.call('ZRANGEBYSCORE', KEYS[3], slot, slot) == 0 then
    -- the chosen instance skips the slot because a run is still in progress: the slot is decided,
    -- so that no takeover runs it once that run ends
    redis.call('ZADD', KEYS[3], slot, slot .. ':')
  end
  record_skip(reason)
  return {3, reason, now}
end
if slot ~= '' then
  local ran = redis.call('ZRANGEBYSCORE', KEYS[3], slot, slot)
  if #ran > 0 then
    local by = string.match(ran[1], '^[^:]*:(.*)$')
    local reason
    if by == '' then
      reason = 'slot was skipped by its chosen instance: a run was in progress'
    else
      reason = 'slot already ran on ' .. by
    end
    record_skip(reason)
    return {0, reason, now}
  end
end

if slot ~= '' and ARGV[5] == 'first' then
  local chosen = elected(slot)
  if not chosen then
    -- who may be chosen: instances seen alive that fired the job since about the previous election
    -- (the first election takes any that fired it)
    local fired_since
    local previous = redis.call('ZREVRANGEBYSCORE', KEYS[6], '(' .. slot, '-inf', 'LIMIT', 0, 1)
    if #previous > 0 then
      local previous_slot = tonumber(string.match(previous[1], '^([^:]*):'))
      fired_since = previous_slot - (tonumber(slot) - previous_slot)
    end
    local alive_since = now - tonumber(ARGV[6])
    local seen = redis.call('HGETALL', KEYS[4])
    local best
    for i = 1, #seen, 2 do
      local candidate, last_seen = seen[i], tonumber(seen[i + 1])
      if last_seen >= alive_since then
        local fired = tonumber(redis.call('HGET', KEYS[7], candidate) or '')
        if fired and (not fired_since or fired >= fired_since) then
          local last = tonumber(redis.call('HGET', KEYS[5], candidate) or '0')
          if not chosen or last < best or (last == best and candidate < chosen) then
            chosen, best = candidate, last
          end
        end
      elseif last_seen < alive_since - 10 * tonumber(ARGV[6]) then
        redis.call('HDEL', KEYS[4], candidate)
        redis.call('HDEL', KEYS[5], candidate)
        redis.call('HDEL', KEYS[7], candidate)
      end
    end
    chosen = chosen or instance
    redis.call('ZADD', KEYS[6], slot, slot .. ':' .. chosen)
    -- rotation counts elections, so that claims for adjacent slots that overlap still rotate
    redis.call('HSET', KEYS[5], chosen, slot)
  end
  if chosen ~= instance then
    record_skip('left to ' .. chosen .. ', which was elected least recently')
    return {2, chosen, now}
  end
end

if slot ~= '' then
  redis.call('ZADD', KEYS[3], slot, slot .. ':' .. instance)
else
  redis.call('HSET', KEYS[5], instance, now)
end
-- the guard is a fresh key each run, so the clock alone makes its token larger than the last run's
redis.call('SET', KEYS[1], ARGV[2] .. ':' .. format_token(now_us), 'PX', ARGV[3])
redis.call('HSET', KEYS[2], 'run.start', now)
return {1, now_us, now}
