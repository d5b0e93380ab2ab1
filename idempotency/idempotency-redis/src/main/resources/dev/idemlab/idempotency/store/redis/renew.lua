-- Extends the live reservation held by a token: the holder's heartbeat.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] lease in milliseconds
-- Returns 1 (DONE), 0 (NOT_HELD: the lease ran out or someone else's record is there), or
--         {4} / {4, value} (UNREADABLE: see reserve.lua, which also describes the record).
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
if not current then
  return 0
end
local head = string.sub(current, 1, 4)
if head ~= '3|p|' then
  return (head == '3|c|' or head == '3|n|' or head == '2|p|' or head == '2|c|' or head == '2|n|') and 0
      or {4, current}
end
local bar = string.find(current, '|', 37, true)
if not bar or string.sub(current, bar + 1) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
