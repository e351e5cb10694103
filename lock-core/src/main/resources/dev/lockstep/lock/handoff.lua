-- Shared by the lock scripts (prepended to each of them, after lock-values.lua, when it is loaded);
-- no keys, no arguments. A wait-queue entry is '<instance>:<sequence>:<grant lease in ms>'; the
-- owner id is the first two parts.

-- The lock's value (false when nobody holds it) and, when owner holds it, its fencing token.
local function held_by(lock, owner)
  local current = redis.call('GET', lock)
  if current then
    local holder, token = holder_of(current)
    if holder == owner then
      return current, token
    end
  end
  return current, nil
end

-- Pops the head of the wait queue, makes it the holder with the lease its entry asks for (the short
-- liveness lease: the waiter confirms the grant and extends it to its own lease, see renew.lua) and
-- tells its instance. Returns its owner id and token, or nil when nobody is waiting.
local function grant_next(lock, queue, previous_token, channel_prefix)
  while true do
    local entry = redis.call('LPOP', queue)
    if not entry then
      return nil, nil
    end
    local instance, sequence, lease = split_triple(entry)
    if instance then
      local token = previous_token and (previous_token + 1) or clock_token()
      local owner = instance .. ':' .. sequence
      redis.call('SET', lock, owner .. ':' .. format_token(token), 'PX', lease)
      -- pcall: a user without rights on the channel (a Redis 6+ ACL) must not abort the script after
      -- its writes; the waiter's heartbeat then finds the hand-over instead
      redis.pcall('PUBLISH', channel_prefix .. instance, sequence .. ':' .. format_token(token) .. ':' .. lock)
      return owner, token
    end
  end
end
