-- Undoes a claim whose reply never reached its caller (a timeout or an interrupt while the script
-- was on its way): gives up the guard and frees the slot, if the claim took them. Sent after the
-- claim on the same connection, so it runs after it.
-- KEYS[1] guard, KEYS[2] slots (see job-claim.lua)
-- ARGV[1] owner id, ARGV[2] instance, ARGV[3] slot ms ('' when none)
-- Returns 1 when the claim was undone, 0 when it had not taken the guard.
local current = redis.call('GET', KEYS[1])
if not current or holder_of(current) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if ARGV[3] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[3] .. ':r:' .. ARGV[2])
end
return 1
