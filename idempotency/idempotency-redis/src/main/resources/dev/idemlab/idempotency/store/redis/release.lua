-- Removes the reservation held by a token, atomically, so that a retry runs the action again.
-- KEYS[1] the record's key
-- ARGV[1] owner token
-- Returns {1} (DONE), or {0} (NOT_HELD: someone else's record, or none; nothing was removed).
local current = redis.call('GET', KEYS[1])
if not current then
  return {0}
end
local record = cjson.decode(current)
if record.state ~= 'pending' or record.token ~= ARGV[1] then
  return {0}
end
redis.call('DEL', KEYS[1])
return {1}
