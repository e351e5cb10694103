-- Appends ARGV[1], prefixed with the server's TIME in microseconds, to the list KEYS[1]; returns
-- that time. One clock for every process that records events (EventLog).
local t = redis.call('TIME')
local micros = t[1] .. string.rep('0', 6 - string.len(t[2])) .. t[2]
redis.call('RPUSH', KEYS[1], micros .. ' ' .. ARGV[1])
return micros
