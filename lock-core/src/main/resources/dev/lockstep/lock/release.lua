-- Releases the caller's lock and hands it straight to the head of the wait queue, if any.
-- A caller that no longer holds the lock (expired, taken over, or granted again under another
-- token) changes nothing it does not own.
-- KEYS[1] lock, KEYS[2] wait queue, KEYS[3] liveness hash (entry -> deadline)
-- ARGV[1] the caller's lock value '<owner id>:<fencing token>', or '<owner id>:*' from a caller that
-- gave up on an attempt before learning its token (owner ids are unique per attempt), ARGV[2] wake-up
-- channel prefix
-- Returns 1 when the caller's lock was released, 0 when the caller did not hold it.
local current = redis.call('GET', KEYS[1])
if not current then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    grant_next(KEYS[1], KEYS[2], nil, ARGV[2])
  end
  return 0
end
local holder, token = holder_of(current)
if current ~= ARGV[1] and (not holder or ARGV[1] ~= holder .. ':*') then
  return 0
end
if not grant_next(KEYS[1], KEYS[2], token, ARGV[2]) then
  redis.call('DEL', KEYS[1], KEYS[3])
end
return 1
