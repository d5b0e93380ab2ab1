-- Reads the live record and its remaining time in one round trip.
-- KEYS[1] the record's key
-- Returns {2, record, pttl} (FOUND), {3} (ABSENT; expired keys are absent: Redis decides), or
--         {4} (UNREADABLE: a value of another type is there). The client reads the record (see
--         reserve.lua) and refuses what it cannot read.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
if not current then
  return {3}
end
return {2, current, redis.call('PTTL', KEYS[1])}
