-- Extends the leases of locks the caller still owns (the watchdog's batch; one slot per call).
-- KEYS[1..n] locks
-- ARGV[1..n] the owner id for each lock, ARGV[n+1..2n] the new lease in ms for each lock
-- Returns a list with 1 where the lease was extended and 0 where the caller no longer owns the lock.
local count = #KEYS
local renewed = {}
for i = 1, count do
  local current = redis.call('GET', KEYS[i])
  if current and holder_of(current) == ARGV[i] then
    redis.call('PEXPIRE', KEYS[i], ARGV[count + i])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
