-- Takes one call from a rate limit's bucket if it has one: a generic cell rate algorithm on the
-- Redis server's clock. The key holds the theoretical arrival time (TAT) in server microseconds:
-- the time at which the bucket would be full again. Each allowed call moves it on by one
-- interval (per / limit, rounded up to a microsecond, so never more calls than the limit);
-- a call is allowed while the TAT it would set is at most `per` ahead of now, so an idle key
-- (no key, or a TAT in the past) allows a burst of `limit` calls.
-- KEYS[1] <prefix>{rate:K}
-- ARGV[1] limit (calls per `per`), ARGV[2] per in microseconds
-- Returns {1 allowed / 0 refused, calls left now, microseconds until a call is allowed (0 if allowed)}.
-- The key expires when the bucket is full again, so an idle key takes no memory; a changed limit
-- or `per` reads the same TAT, so what was used (in time) is kept.
local limit = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local interval = math.ceil(per / limit)

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then
	tat = now
end
local next_tat = tat + interval
if next_tat - now > per then
	return {0, 0, next_tat - per - now}
end
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
return {1, math.floor((per - (next_tat - now)) / interval), 0}
