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
-- run, so no clock, however late, can run a slot twice. (The member heartbeat, job-member.lua,
-- prunes the records older than the horizon and the instances long gone.)
-- Redis may lose the records (a restart without persistence, FLUSHALL), and then nothing says a
-- slot ran. So a slot past its window (ARGV[9], by this server's clock) never starts, whatever the
-- records say; a takeover, a wait or a give-up (which follow a first claim that elected the slot)
-- that finds no election never starts it either; and an instance that announced itself before and
-- finds its membership gone takes it as the records lost: the first to notice records in 'lost'
-- the slot up to which none runs (the later of the slot and now, plus three skew tolerances: what
-- a clock within the tolerance may have run before the loss, as seen by a clock up to two
-- tolerances off).
-- KEYS[1] guard (lock value '<instance>:<sequence>:<token>' with a PX lease; the token is the
--   server time in microseconds when the run started), KEYS[2] state hash (the last skip, and
--   'run.owner' / 'run.slot': the owner id and slot of the latest run claimed for a slot, so that a
--   claim that finds the guard held can tell which slot's run holds it),
-- KEYS[3] slots (zset scored by slot: '<slot>:e:<chosen instance>' for its election,
--   '<slot>:r:<instance that ran it>' once decided, '<slot>:r:' when its chosen instance gave it up
--   because the run of an earlier slot still held the guard a whole period later: a job longer than
--   its period),
-- KEYS[4] members hash ('seen:<instance>' last seen ms, 'fired:<instance>' last slot it fired,
--   'elected:<instance>' last slot it was elected for, 'elected' the latest slot elected,
--   'pruned' the highest slot below which job-member.lua may have pruned slot records, 'lost' the
--   highest slot that may have run before Redis lost the job's records)
-- ARGV[1] instance, ARGV[2] owner id ('<instance>:<sequence>'), ARGV[3] lease ms (lockAtMostFor),
-- ARGV[4] slot ms ('' when the firing has none), ARGV[5] 'first' (the instance's own firing),
-- 'takeover' (run an undecided slot: one left to another instance, or the chosen instance trying
-- again after it found the guard held) or 'give-up' (the chosen instance found the run of an
-- earlier slot holding the guard a whole period after that slot: run if the guard is free now,
-- else decide the slot skipped, but only while the run ARGV[8] names still holds the guard),
-- ARGV[6] liveness window ms, ARGV[7] horizon ms, ARGV[8] for 'give-up': the holder's owner id,
-- ARGV[9] the latest server time (ms) at which the slot may still start ('' for none: see SlotWindow),
-- ARGV[10] skew tolerance ms, ARGV[11] '1' when this instance's membership was recorded before
-- (job-member.lua answered it), so that finding it gone means the records were lost
-- Returns {1, token, start ms} to run; {0, reason, now ms} to skip; {2, instance, now ms} when the
-- slot is left to that instance; {3, reason, now ms, holder's slot ('' when unknown), holder's start
-- ms, holder's owner id} when another run holds the guard and the slot is not decided: the caller
-- may try again (a first firing of a slot is never decided by finding the guard held: only a
-- 'give-up' decides it). The caller compares the slot with the server's time to detect its clock's skew.
local now_parts = redis.call('TIME')
local now_us = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local now = math.floor(now_us / 1000)
local instance, owner, slot = ARGV[1], ARGV[2], ARGV[4]
local first = ARGV[5] == 'first'
local give_up = ARGV[5] == 'give-up'

-- member fields to write before replying: a first firing of a slot records it as the instance's last
local member_fields = {}
if slot ~= '' and first then
  member_fields = {'fired:' .. instance, slot}
end

-- slot records to add before replying (an election and a decision go in one ZADD)
local slot_records = {}

local function reply(outcome, detail, at, ...)
  if #member_fields > 0 then
    redis.call('HSET', KEYS[4], unpack(member_fields))
  end
  if #slot_records > 0 then
    redis.call('ZADD', KEYS[3], unpack(slot_records))
  end
  return {outcome, detail, at, ...}
end

local function skip(outcome, reason)
  redis.call('HSET', KEYS[2], 'skip.instance', instance, 'skip.at', now, 'skip.reason', reason, 'skip.slot', slot)
  return reply(outcome, reason, now)
end

-- the run of this very owner: the same claim once more (a command replayed after a reconnect)
local function own_run()
  local current = redis.call('GET', KEYS[1])
  if current then
    local holder, token = holder_of(current)
    if holder == owner then
      return reply(1, token, math.floor(token / 1000))
    end
  end
  return nil
end

local function pruned_away()
  member_fields = {}
  return skip(0, 'slot is older than the slot records kept (an instance with a shorter horizon pruned them): '
    .. 'this clock is far behind')
end

local function lost_before(lost)
  member_fields = {}
  return skip(0, 'Redis lost the job\'s records: slots up to ' .. lost .. ' may have run before the loss, and none '
    .. 'of them runs again')
end

local chosen, decided
if slot ~= '' then
  if tonumber(slot) < now - tonumber(ARGV[7]) then
    member_fields = {}
    return skip(0, 'slot is older than the history the guard keeps (' .. ARGV[7] .. ' ms): this clock is far behind')
  end
  for _, record in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], slot, slot)) do
    local kind, who = string.match(record, '^[^:]*:(%a):(.*)$')
    if kind == 'e' then
      chosen = who
    elseif kind == 'r' then
      decided = who
    end
  end
  if decided then
    if decided == instance then
      local replayed = own_run()
      if replayed then
        return replayed
      end
    end
    if decided == '' then
      return skip(0, 'slot was given up by its chosen instance: the run of an earlier slot still held the guard '
        .. 'a whole period later (a job longer than its period)')
    end
    return skip(0, 'slot already ran on ' .. decided)
  end
  if ARGV[9] ~= '' and now > tonumber(ARGV[9]) then
    member_fields = {}
    return skip(0, 'slot is past the window in which it may still run (' .. (tonumber(ARGV[9]) - tonumber(slot))
      .. ' ms after it by Redis\'s clock: twice lockstep.job-guard.skew-tolerance and a period): it may have run, '
      .. 'and Redis may have lost the records that say so')
  end
  if not chosen and not first then
    -- a takeover of a slot without records: they may have been pruned (a first claim reads this below),
    -- or lost with Redis's data; the first claim that made this takeover elected the slot
    local pruned = tonumber(redis.call('HGET', KEYS[4], 'pruned'))
    if pruned and tonumber(slot) < pruned then
      return pruned_away()
    end
    return skip(0, 'the slot\'s records are gone (Redis lost its data): it may have run, so it does not run again')
  end
end

if slot ~= '' and first and not chosen then
  -- who may be chosen: instances seen alive that fired the job since about the previous election
  -- (the first election takes any that fired it)
  local members = redis.call('HGETALL', KEYS[4])
  local seen, fired, elected = {}, {}, {}
  local latest, pruned, lost
  for i = 1, #members, 2 do
    local kind, who = string.match(members[i], '^(%a+):(.*)$')
    local value = tonumber(members[i + 1])
    if kind == 'seen' then
      seen[who] = value
    elseif kind == 'fired' then
      fired[who] = value
    elseif kind == 'elected' then
      elected[who] = value
    elseif members[i] == 'elected' then
      latest = value
    elseif members[i] == 'pruned' then
      pruned = value
    elseif members[i] == 'lost' then
      lost = value
    end
  end
  if pruned and tonumber(slot) < pruned then
    return pruned_away()
  end
  if ARGV[11] == '1' and not seen[instance] then
    -- this instance was a member and is not: Redis lost the records (or pruned an instance stopped for
    -- ten liveness windows); its membership is recorded again, so that it notices this once. The
    -- first to notice a loss sets 'lost' (a loss takes 'lost' with it): the others, noticing later,
    -- would set it later than the slots that may have run before the loss
    if not lost then
      lost = math.max(tonumber(slot), now) + 3 * tonumber(ARGV[10])
      redis.call('HSET', KEYS[4], 'lost', lost)
    end
    redis.call('HSET', KEYS[4], 'seen:' .. instance, now)
  end
  if lost and tonumber(slot) <= lost then
    return lost_before(lost)
  end
  fired[instance] = tonumber(slot)
  local previous
  if latest and latest < tonumber(slot) then
    previous = latest
  else
    local earlier = redis.call('ZREVRANGEBYSCORE', KEYS[3], '(' .. slot, '-inf', 'LIMIT', 0, 1)
    if #earlier > 0 then
      previous = tonumber(string.match(earlier[1], '^([^:]*):'))
    end
  end
  local fired_since
  if previous then
    fired_since = previous - (tonumber(slot) - previous)
  end
  local alive_since = now - tonumber(ARGV[6])
  local best
  for candidate, last_seen in pairs(seen) do
    local last_fired = fired[candidate]
    if last_seen >= alive_since and last_fired and (not fired_since or last_fired >= fired_since) then
      local last = elected[candidate] or 0
      if not chosen or last < best or (last == best and candidate < chosen) then
        chosen, best = candidate, last
      end
    end
  end
  chosen = chosen or instance
  slot_records = {slot, slot .. ':e:' .. chosen}
  -- rotation counts elections, so that claims for adjacent slots that overlap still rotate
  table.insert(member_fields, 'elected:' .. chosen)
  table.insert(member_fields, slot)
  if not latest or latest < tonumber(slot) then
    table.insert(member_fields, 'elected')
    table.insert(member_fields, slot)
  end
end

if slot ~= '' and first and chosen ~= instance then
  redis.call('HSET', KEYS[2], 'skip.instance', instance, 'skip.at', now,
    'skip.reason', 'left to ' .. chosen .. ', which was elected least recently', 'skip.slot', slot)
  return reply(2, chosen, now)
end

-- the guard is a fresh key each run, so the clock alone makes its token larger than the last run's
if not redis.call('SET', KEYS[1], owner .. ':' .. format_token(now_us), 'NX', 'PX', ARGV[3]) then
  local replayed = own_run()
  if replayed then
    return replayed
  end
  local current = redis.call('GET', KEYS[1]) or ''
  local holder, token = holder_of(current)
  holder = holder or ''
  local holder_instance = string.match(current, '^([^:]+)') or '?'
  local holder_slot = ''
  local run = redis.call('HMGET', KEYS[2], 'run.owner', 'run.slot')
  if holder ~= '' and run[1] == holder and run[2] then
    holder_slot = run[2]
  end
  local started = token and math.floor(token / 1000) or now
  if slot == '' then
    return skip(3, 'held by ' .. holder_instance)
  end
  local running = 'held by ' .. holder_instance .. ' (its run '
    .. ((holder_slot ~= '') and ('of slot ' .. holder_slot) or 'without a slot') .. ', '
    .. (now - started) .. ' ms so far)'
  if give_up and holder == ARGV[8] then
    -- a job longer than its period: the slot is decided, so that no takeover runs it once that run ends
    table.insert(slot_records, slot)
    table.insert(slot_records, slot .. ':r:')
    return skip(0, 'given up: the guard was still ' .. running .. ' a whole period after that slot (a job longer '
      .. 'than its period)')
  end
  -- not decided: this instance, or the takeovers queued for the slot, try again
  return reply(3, running, now, holder_slot, started, holder)
end
if slot ~= '' then
  -- only a slot's run is recorded: a claim that finds a run without a slot holding the guard sees an
  -- owner id here that is not the holder's (owner ids are never reused), which reads as 'without a slot'
  redis.call('HSET', KEYS[2], 'run.owner', owner, 'run.slot', slot)
  table.insert(slot_records, slot)
  table.insert(slot_records, slot .. ':r:' .. instance)
end
return reply(1, now_us, now)
