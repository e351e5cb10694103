-- Shared by the lock, permit and job-guard scripts (prepended to each of them when it is loaded); no keys,
-- no arguments. A lock value (a lock, or a job's guard) is '<instance>:<sequence>:<fencing token>'
-- with a PX lease; the owner id is the first two parts.

-- Splits 'a:b:c' into a, b, c (c must be digits); nil for anything else.
local function split_triple(value)
  return string.match(value, '^([^:]+):([^:]+):(%d+)$')
end

-- The owner id and fencing token stored in a lock value.
local function holder_of(value)
  local instance, sequence, token = split_triple(value)
  if not instance then
    return nil, nil
  end
  return instance .. ':' .. sequence, tonumber(token)
end

-- A fresh fencing token: the server clock in microseconds, so it exceeds every earlier token of
-- any key without keeping a counter per key (tokens handed over directly add one instead).
local function clock_token()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000000 + tonumber(now[2])
end

local function format_token(token)
  return string.format('%.0f', token)
end

-- One instance's visit to a wait queue (KEYS-free: the queue list and its liveness hash, entry ->
-- deadline in ms, are passed in): the instance's own entries (ARGV[first_own..]) and entries not
-- seen before get the deadline given, entries whose deadline passed (their instance died) leave
-- the queue, and deadlines of entries no longer queued are forgotten. Deadlines use the Redis
-- server's clock only. Returns the set of entries still queued.
local function visit_waiters(queue, liveness, now_ms, deadline, first_own)
  local deadlines = {}
  local flat = redis.call('HGETALL', liveness)
  for i = 1, #flat, 2 do
    deadlines[flat[i]] = tonumber(flat[i + 1])
  end
  local own = {}
  for i = first_own, #ARGV do
    own[ARGV[i]] = true
  end
  local queued = {}
  for _, entry in ipairs(redis.call('LRANGE', queue, 0, -1)) do
    local entry_deadline = deadlines[entry]
    if own[entry] or not entry_deadline then
      redis.call('HSET', liveness, entry, deadline)
      queued[entry] = true
    elseif entry_deadline < now_ms then
      redis.call('LREM', queue, 0, entry)
    else
      queued[entry] = true
    end
  end
  for entry in pairs(deadlines) do
    if not queued[entry] then
      redis.call('HDEL', liveness, entry)
    end
  end
  return queued
end
