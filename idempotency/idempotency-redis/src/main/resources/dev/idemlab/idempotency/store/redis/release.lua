-- Removes the reservation held by a token, atomically, so that a retry runs the action again.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] the notification channel, ARGV[3] how: PUBLISH or SPUBLISH, ARGV[4] the
-- message, as the client builds it: '3|r|<#key>|<#token>|<key><token>' (see complete.lua)
-- Returns 1 (DONE), 0 (NOT_HELD: someone else's record, or none; nothing was removed), or
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
redis.call('DEL', KEYS[1])
redis.call(ARGV[3], ARGV[2], ARGV[4])
return 1
