-- Takes from a count, never below 0, in one step.
-- KEYS[1] the count: <prefix>{counter:K}
-- ARGV[1] amount
-- Returns the count after the call. A count without expiry that reaches 0 leaves Redis (a
-- missing count is 0); a windowed one stays at 0 until its window ends.
local amount = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count == 0 then
	return 0
end
local after = count - amount
if after < 0 then
	after = 0
end
if after == 0 and redis.call('PTTL', KEYS[1]) == -1 then
	redis.call('DEL', KEYS[1])
else
	redis.call('DECRBY', KEYS[1], count - after)
end
return after
