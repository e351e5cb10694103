-- Shared by renew.lua and permit-renew.lua (prepended to each script of the lock and of the
-- permits, with the other shared files, when they are loaded); no keys, no arguments.

-- The watchdog's batch: calls extend(i) for slots 1 to count, each of which extends the caller's
-- lease in that slot if the caller still owns it and says whether it did. Returns a list with 1
-- where the lease was extended and 0 where not.
local function renew_each(count, extend)
  local renewed = {}
  for i = 1, count do
    renewed[i] = extend(i) and 1 or 0
  end
  return renewed
end
