-- Takes a lock that is free and has nobody queued; otherwise joins the lock's wait queue
-- (unless this is a single attempt). A free lock with a queue goes to the queue's head first.
-- Needs Redis 6.0.6 or later (LPOS).
-- KEYS[1] lock, KEYS[2] wait queue
-- ARGV[1] owner id, ARGV[2] lease in ms, ARGV[3] queue entry ('' for a single attempt),
-- ARGV[4] queue time-to-live in ms, ARGV[5] wake-up channel prefix
-- Returns the fencing token (> 0) when the caller holds the lock now, 0 otherwise.
-- A call that finds the lock already the caller's is this call sent again (Lettuce re-sends a
-- command whose reply a dropped connection lost), and its first sending queued the caller, who
-- was handed the lock since for the short grant lease: the caller counts the whole lease from
-- when it sent the call, as for any lock this script gives, so the lock is made to last the whole
-- lease from now (later than that).
local current, mine = held_by(KEYS[1], ARGV[1])
if mine then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return mine
elseif current then
  -- held by another: queue below
elseif redis.call('EXISTS', KEYS[2]) == 0 then
  local token = clock_token()
  redis.call('SET', KEYS[1], ARGV[1] .. ':' .. format_token(token), 'PX', ARGV[2])
  return token
else
  local owner, token = grant_next(KEYS[1], KEYS[2], nil, ARGV[5])
  if owner == ARGV[1] then
    -- this call sent again, its entry at the queue's head: the whole lease, as above
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return token
  end
end
join_queue(KEYS[2], ARGV[3], ARGV[4])
return 0
