-- Tells every instance's idle workers that a group's next task may start: sent by an instance told
-- alone (see :idle in queue-common.lua) that has no worker waiting.
-- ARGV[1] the queue's wake-up channel
-- Returns how many clients heard it.
return redis.call('PUBLISH', ARGV[1], '')
