-- Turns the reservation held by a token into a completed record, atomically.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] 'result' or 'notStoredReason', ARGV[3] its value,
-- ARGV[4] ttl in milliseconds
-- Returns {1} (DONE), or {0} (NOT_HELD: the token's lease ran out or the key was taken over;
-- nothing was written, so a stale holder cannot overwrite the new owner's record).
local current = redis.call('GET', KEYS[1])
if not current then
  return {0}
end
local record = cjson.decode(current)
if record.state ~= 'pending' or record.token ~= ARGV[1] then
  return {0}
end
local completed = {state = 'completed', fingerprint = record.fingerprint}
completed[ARGV[2]] = ARGV[3]
redis.call('SET', KEYS[1], cjson.encode(completed), 'PX', ARGV[4])
return {1}
