-- Extends the leases of permits the caller still holds (the watchdog's batch; one slot per call),
-- and confirms a hand-over, as renew.lua does for locks: owner and fencing token must both match,
-- and a lease that has ended on the server's clock is not revived.
-- KEYS[1..n] holders sets, KEYS[n+1..2n] their token counters
-- ARGV[1..n] the caller's '<owner id>:<fencing token>' in each, ARGV[n+1..2n] the new lease in ms
-- Returns a list with 1 where the lease was extended and 0 where the caller no longer holds it.
local count = #KEYS / 2
local now = now_ms()
return renew_each(count, function(i)
  local ends = redis.call('ZSCORE', KEYS[i], ARGV[i])
  if not ends or tonumber(ends) <= now then
    return false
  end
  redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[count + i]), ARGV[i])
  keep(KEYS[i], KEYS[count + i], now)
  return true
end)
