-- Takes from a count, never below 0, in one step.
-- KEYS[1] the count: <prefix>{counter:K}
-- KEYS[2] the record of this call, <prefix>{counter:K}:call:<call id>
-- ARGV[1] amount, ARGV[2] how long the record is kept in ms
-- Returns the count after the call. A count without expiry that reaches 0 leaves Redis (a
-- missing count is 0); a windowed one stays at 0 until its window ends. The same call sent again
-- (Lettuce sends a command again after a reconnect when its reply was lost) answers as the first
-- did and takes nothing more.
local first = redis.call('GET', KEYS[2])
if first then
	return tonumber(first)
end
local amount = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = count - amount
if after < 0 then
	after = 0
end
if count == 0 then
	-- nothing to take
elseif after == 0 and redis.call('PTTL', KEYS[1]) == -1 then
	redis.call('DEL', KEYS[1])
else
	redis.call('DECRBY', KEYS[1], count - after)
end
redis.call('SET', KEYS[2], after, 'PX', ARGV[2])
return after
