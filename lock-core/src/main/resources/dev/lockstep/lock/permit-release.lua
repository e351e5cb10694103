-- Releases the caller's permit and hands free permits to the head of the wait queue. A caller that
-- no longer holds its permit (expired, or granted again under another token) changes nothing it
-- does not own.
-- KEYS[1] holders, KEYS[2] wait queue, KEYS[3] liveness hash, KEYS[4] token counter
-- ARGV[1] the caller's '<owner id>:<fencing token>', or '<owner id>:*' from a caller that gave up on
-- an attempt before learning its token, ARGV[2] wake-up channel prefix
-- Returns 1 when the caller's permit was released, 0 when the caller did not hold one.
local now = now_ms()
purge(KEYS[1], now)
local released = redis.call('ZREM', KEYS[1], ARGV[1])
local owner = string.match(ARGV[1], '^(.+):%*$')
if released == 0 and owner then
  local member = holding(KEYS[1], owner)
  if member then
    released = redis.call('ZREM', KEYS[1], member)
  end
end
hand_on(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now, ARGV[2])
return released
