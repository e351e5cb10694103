-- Gives a running task back, unfinished (its instance stops): it runs again before its group's
-- later tasks, on any instance. The attempt it started stays counted: given back on its last
-- attempt, it goes to the dead letters instead, as a task whose lease ran out does (so a task that
-- never ends within the shutdown timeout does not move from instance to instance for ever).
-- ARGV[1] task id, ARGV[2] owner id, ARGV[3] reason, ARGV[4] wake-up channel, ARGV[5] max attempts
-- Returns 1 when it was given back, 2 when it went to the dead letters (also for the same call sent
-- again once it was recorded: nothing changes then), or 0 when the task is no longer this owner's.
local id = ARGV[1]
local group, attempt = end_attempt(id, ARGV[2], 'release')
if not group then
  return attempt
end
if attempt >= tonumber(ARGV[5]) then
  bury(id, group, ARGV[3] .. ', on its last attempt (' .. attempt .. ' of ' .. ARGV[5] .. ')', now_ms(), ARGV[4],
    ARGV[2], end_record(ARGV[2], 'release', 2))
  return 2
end
requeue(id, group, ARGV[3], ARGV[4], ARGV[2], end_record(ARGV[2], 'release', 1))
return 1
