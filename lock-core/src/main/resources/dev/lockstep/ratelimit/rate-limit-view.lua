-- Reads a rate limit's bucket without changing it (for the actuator endpoint).
-- KEYS[1] <prefix>{rate:K}
-- Returns microseconds until the bucket is full again on the Redis server's clock (0 when it is
-- full: no key, or a time in the past).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat <= now then
	return 0
end
return tat - now
