-- Keeps a wait queue alive while this instance has waiters in it that waited less than a heartbeat
-- interval (heartbeat.lua visits only those that waited longer): under steady contention with
-- short waits the queue never empties, and its time-to-live, set when it was made, would run out
-- under the waiters, dropping their places. A queue that is gone stays gone.
-- KEYS[1] wait queue, ARGV[1] queue time-to-live in ms
-- Returns 1 when the queue is there, else 0.
return redis.call('PEXPIRE', KEYS[1], ARGV[1])
