-- Takes a permit when fewer hold one than the caller's own limit and nobody is queued; otherwise
-- joins the wait queue (unless this is a single attempt). Free permits go to the queue first.
-- KEYS[1] holders, KEYS[2] wait queue, KEYS[3] token counter
-- ARGV[1] owner id, ARGV[2] lease in ms, ARGV[3] queue entry ('' for a single attempt),
-- ARGV[4] queue time-to-live in ms, ARGV[5] wake-up channel prefix, ARGV[6] the caller's permits
-- Returns the fencing token (> 0) when the caller holds a permit now, 0 otherwise.
-- A call that finds a permit already the caller's is this call sent again (Lettuce re-sends a
-- command whose reply a dropped connection lost), and its first sending queued the caller, who
-- was granted a permit since (or is now) for the short grant lease: the caller counts the whole
-- lease from when it sent the call, as for any permit this script gives, so the permit is made to
-- last the whole lease from now (later than that).
local now = now_ms()
local count = purge(KEYS[1], now)
local member, held = holding(KEYS[1], ARGV[1])
if not held and redis.call('EXISTS', KEYS[2]) == 1 then
  grant_waiting(KEYS[1], KEYS[2], KEYS[3], now, ARGV[5])
  -- a replayed call whose entry was at the head has just been granted
  member, held = holding(KEYS[1], ARGV[1])
  count = redis.call('ZCARD', KEYS[1])
end
if held then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), member)
elseif count < tonumber(ARGV[6]) and redis.call('EXISTS', KEYS[2]) == 0 then
  held = next_token(KEYS[3])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1] .. ':' .. format_token(held))
end
if held then
  keep(KEYS[1], KEYS[3], now)
  return held
end
join_queue(KEYS[2], ARGV[3], ARGV[4])
keep(KEYS[1], KEYS[3], now)
return 0
