-- An instance starting (again) gives back the tasks that an earlier run under its instance id held
-- when it stopped uncleanly (killed, crashed): their attempts will not end, and waiting out their
-- leases would leave the instance id running more than its workers. Owner ids are
-- '<instance id>:<run>:<sequence>', and instance ids hold no ':', so the prefix names the instance.
-- Looks through the running tasks' owners (as many as the workers of every instance), at start only;
-- the pause fields of :owners hold no ':' and so never match.
-- ARGV[1] '<instance id>:', ARGV[2] '<instance id>:<this run>:', ARGV[3] max attempts,
-- ARGV[4] wake-up channel
-- Returns the ids of the tasks given back (or buried, after their last attempt).
local owners = redis.call('HGETALL', base .. ':owners')
local now = now_ms()
local given = {}
for i = 1, #owners, 2 do
  local owner = owners[i]
  if string.sub(owner, 1, #ARGV[1]) == ARGV[1] and string.sub(owner, 1, #ARGV[2]) ~= ARGV[2] then
    abandon(owners[i + 1], '%s stopped and its instance started again', now, ARGV[3], ARGV[4])
    given[#given + 1] = owners[i + 1]
  end
end
return given
