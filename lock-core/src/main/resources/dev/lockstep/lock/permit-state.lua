-- Reads one permit key as Redis holds it, for monitoring; writes nothing.
-- KEYS[1] holders, KEYS[2] wait queue
-- ARGV[1] how many queue entries to return at most
-- Returns {holders whose lease runs, queue length, queue entries...}.
local now = now_ms()
local reply = {redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'), redis.call('LLEN', KEYS[2])}
for _, entry in ipairs(redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1)) do
  reply[#reply + 1] = entry
end
return reply
