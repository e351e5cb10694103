-- Shared by the permit scripts (prepended to each of them, after lock-values.lua, when it is
-- loaded); no keys, no arguments. A permit key's holders are a sorted set of '<owner id>:<token>'
-- scored by the end of their lease (ms on the Redis server's clock); its wait queue holds entries
-- '<instance>:<sequence>:<grant lease in ms>:<permits>', each waiter's own limit last; its counter
-- key keeps the last fencing token.

-- The Redis server's clock in ms.
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end

-- Drops the holders whose lease has ended (their holder died or stalled); returns how many hold.
local function purge(holders, now)
  redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
  return redis.call('ZCARD', holders)
end

-- The member and token under which the owner holds a permit, or nil.
local function holding(holders, owner)
  local prefix = owner .. ':'
  for _, member in ipairs(redis.call('ZRANGE', holders, 0, -1)) do
    if string.sub(member, 1, #prefix) == prefix then
      local _, token = holder_of(member)
      if token then
        return member, token
      end
    end
  end
  return nil, nil
end

-- A fresh fencing token: above the last one of this key and, like a lock's, above the server
-- clock in microseconds (so above every token of an earlier life of the key).
local function next_token(counter)
  local last = tonumber(redis.call('GET', counter) or '0')
  local token = math.max(clock_token(), last + 1)
  redis.call('SET', counter, format_token(token))
  return token
end

-- The holders set lives as long as its longest lease, the counter a second more.
local function keep(holders, counter, now)
  local last = redis.call('ZRANGE', holders, -1, -1, 'WITHSCORES')
  local left = 0
  if last[2] then
    left = math.max(1, tonumber(last[2]) - now)
    redis.call('PEXPIRE', holders, left)
  end
  redis.call('PEXPIRE', counter, left + 1000)
end

-- Splits a queue entry; nil for anything else.
local function split_entry(entry)
  local instance, sequence, lease, permits = string.match(entry, '^([^:]+):([^:]+):(%d+):(%d+)$')
  return instance, sequence, lease, tonumber(permits)
end

-- Hands free permits to the head of the queue, in order, while the head's own limit admits one
-- more holder; tells each one's instance. A release frees one permit and so wakes one waiter.
local function grant_waiting(holders, queue, counter, now, channel_prefix)
  while true do
    local entry = redis.call('LINDEX', queue, 0)
    if not entry then
      return
    end
    local instance, sequence, lease, permits = split_entry(entry)
    if instance and redis.call('ZCARD', holders) >= permits then
      return
    end
    redis.call('LPOP', queue)
    if instance then
      local token = next_token(counter)
      redis.call('ZADD', holders, now + tonumber(lease), instance .. ':' .. sequence .. ':' .. format_token(token))
      -- pcall as in handoff.lua: the waiter's heartbeat finds the grant if the publish is refused
      redis.pcall('PUBLISH', channel_prefix .. instance, sequence .. ':' .. format_token(token) .. ':' .. holders)
    end
  end
end

-- After a holder or a waiter left: free permits go to the queue's head; with nobody waiting and
-- nobody holding, the liveness hash goes too. The keys' expiries follow the longest lease.
local function hand_on(holders, queue, alive, counter, now, channel_prefix)
  if redis.call('EXISTS', queue) == 1 then
    grant_waiting(holders, queue, counter, now, channel_prefix)
  elseif redis.call('ZCARD', holders) == 0 then
    redis.call('DEL', alive)
  end
  keep(holders, counter, now)
end
