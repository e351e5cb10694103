-- How many groups wait for a worker (:ready); an idle worker woken by a wake-up asks it before it
-- takes, since another instance's worker may have taken the group already.
-- Returns the count.
return redis.call('LLEN', base .. ':ready')
