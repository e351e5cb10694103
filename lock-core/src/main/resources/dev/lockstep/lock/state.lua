-- Reads one lock as Redis holds it, for monitoring; writes nothing.
-- KEYS[1] lock, KEYS[2] wait queue
-- ARGV[1] how many queue entries to return at most
-- Returns {lock value or '', lease left in ms (-2 when no lock), queue length, queue entries...}.
local value = redis.call('GET', KEYS[1]) or ''
local reply = {value, redis.call('PTTL', KEYS[1]), redis.call('LLEN', KEYS[2])}
local entries = redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)
for i = 1, #entries do
  reply[#reply + 1] = entries[i]
end
return reply
