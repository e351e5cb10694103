-- Extends the leases of locks the caller still owns (the watchdog's batch; one slot per call), and
-- confirms a hand-over: a waiter woken for a lock extends its short grant lease to its own lease
-- here before it counts as holding, so a grant that ran out while the waiter stalled is never
-- mistaken for its own. Owner and fencing token must both match: a stale call for an earlier
-- grant changes nothing.
-- KEYS[1..n] locks
-- ARGV[1..n] the caller's value of each lock '<owner id>:<fencing token>', ARGV[n+1..2n] the new lease in ms
-- Returns a list with 1 where the lease was extended and 0 where the caller no longer owns the lock.
local count = #KEYS
return renew_each(count, function(i)
  if redis.call('GET', KEYS[i]) ~= ARGV[i] then
    return false
  end
  redis.call('PEXPIRE', KEYS[i], ARGV[count + i])
  return true
end)
