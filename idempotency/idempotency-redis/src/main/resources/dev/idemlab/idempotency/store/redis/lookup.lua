-- Reads the live record and its remaining time in one round trip.
-- KEYS[1] the record's key
-- Returns {2, record, pttl} (FOUND), or {3} (ABSENT). Expired keys are absent: Redis decides.
local current = redis.call('GET', KEYS[1])
if not current then
  return {3}
end
return {2, current, redis.call('PTTL', KEYS[1])}
