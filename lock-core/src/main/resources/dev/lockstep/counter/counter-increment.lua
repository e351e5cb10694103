-- Adds to a bounded count unless it would exceed the limit, in one step.
-- KEYS[1] the count: <prefix>{counter:K}
-- KEYS[2] the record of this call: <prefix>{counter:K}:id:<idempotency id> (the caller's id), or
-- <prefix>{counter:K}:call:<call id> (an id the service drew for this call alone, against Lettuce
-- sending it again after a reconnect when its reply was lost)
-- ARGV[1] amount, ARGV[2] limit, ARGV[3] expiry of a count this call creates in ms (0: none),
-- ARGV[4] how long the record is kept in ms
-- Returns {1 added / 0 refused, the count after the call}. A call sent again with the same
-- record answers as the first did and changes nothing.
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local expiry = tonumber(ARGV[3])

local first = redis.call('GET', KEYS[2])
if first then
	return {tonumber(first), tonumber(redis.call('GET', KEYS[1]) or '0')}
end

local stored = redis.call('GET', KEYS[1])
local count = tonumber(stored or '0')
local added = 0
if count + amount <= limit then
	added = 1
	if amount > 0 then
		count = redis.call('INCRBY', KEYS[1], ARGV[1])
		if not stored and expiry > 0 then
			-- this call created the count: its window starts now
			redis.call('PEXPIRE', KEYS[1], expiry)
		end
	end
end

redis.call('SET', KEYS[2], added, 'PX', ARGV[4])
return {added, count}
