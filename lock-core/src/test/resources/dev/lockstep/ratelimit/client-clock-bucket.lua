-- The control of RateLimitSkewProcessTests: a token bucket computed with each caller's own clock,
-- the design whose skewed clocks distort a limit. Not Lockstep's limiter.
-- KEYS[1] the bucket (a hash of tokens and the time they were counted at)
-- ARGV[1] limit, ARGV[2] per in ms, ARGV[3] the caller's clock in ms
-- Returns 1 allowed / 0 refused.
local limit = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or limit)
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or now)
-- time never runs backwards for one caller, so such buckets clamp it at zero
tokens = math.min(limit, tokens + math.max(0, now - last) * limit / per)
local allowed = 0
if tokens >= 1 then
	tokens = tokens - 1
	allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(now))
redis.call('PEXPIRE', KEYS[1], per * 2)
return allowed
