-- Extends the guard of a run that is still going, if the caller still holds it.
-- KEYS[1] the job's guard
-- ARGV[1] the runner's owner id, ARGV[2] the new lease in ms
-- Returns a list with 1 when the lease was extended, 0 when the caller no longer holds the guard.
local current = redis.call('GET', KEYS[1])
if current and holder_of(current) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
return {0}
