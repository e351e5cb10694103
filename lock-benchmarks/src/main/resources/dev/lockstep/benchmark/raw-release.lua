-- The raw floor's release: deletes the lock only if the caller's token still holds it.
-- KEYS[1] lock; ARGV[1] the caller's token
-- Returns 1 when deleted, 0 when the lock was no longer the caller's.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
