-- Shared by acquire.lua and permit-acquire.lua (prepended to each script of the lock and of the
-- permits, with the other shared files, when they are loaded); no keys, no arguments.

-- Joins a wait queue with the caller's entry, once: a call replayed after a reconnect finds its
-- entry already queued. The queue that the entry starts gets its time-to-live. An empty entry (a
-- single attempt) joins nothing.
local function join_queue(queue, entry, ttl)
  if entry ~= '' and not redis.call('LPOS', queue, entry) then
    if redis.call('RPUSH', queue, entry) == 1 then
      redis.call('PEXPIRE', queue, ttl)
    end
  end
end
