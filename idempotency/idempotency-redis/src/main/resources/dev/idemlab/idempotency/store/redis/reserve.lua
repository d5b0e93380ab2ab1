-- Reserves a key for one attempt, atomically.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] fingerprint, ARGV[3] lease in milliseconds
-- Returns {1} (DONE: this token holds the reservation now), or
--         {2, record, pttl} (FOUND: another live record is there).
-- A pending record held by this very token is taken again, so that a reply lost to a
-- timeout and retried never makes the owner wait on its own marker.
local current = redis.call('GET', KEYS[1])
if current then
  local record = cjson.decode(current)
  if record.state ~= 'pending' or record.token ~= ARGV[1] then
    return {2, current, redis.call('PTTL', KEYS[1])}
  end
end
local pending = cjson.encode({state = 'pending', token = ARGV[1], fingerprint = ARGV[2]})
redis.call('SET', KEYS[1], pending, 'PX', ARGV[3])
return {1}
