-- Removes the reservation held by a token, atomically, so that a retry runs the action again.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] the notification channel: the record's key is published there,
-- ARGV[3] how: PUBLISH or SPUBLISH (see complete.lua)
-- Returns {1} (DONE), {0} (NOT_HELD: someone else's record, or none; nothing was removed), or
--         {4, why} (UNREADABLE).
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4, 'not a string value'}
end
if not current then
  return {0}
end
local decoded, record = pcall(cjson.decode, current)
if not decoded or type(record) ~= 'table' or record.v ~= 1 then
  return {4, 'not a record of schema version 1'}
end
if record.state ~= 'pending' or record.token ~= ARGV[1] then
  return {0}
end
redis.call('DEL', KEYS[1])
redis.call(ARGV[3], ARGV[2], KEYS[1])
return {1}
