-- Shared by the lock and job-guard scripts (prepended to each of them when it is loaded); no keys,
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
