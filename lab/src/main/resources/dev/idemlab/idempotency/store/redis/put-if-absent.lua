-- Stores a completed record unless a live record is there: first writer wins. Only the broken
-- RUN policy uses it.
-- KEYS[1] the record's key
-- ARGV[1] fingerprint, ARGV[2] 'result' or 'notStoredReason', ARGV[3] its value,
-- ARGV[4] ttl in milliseconds
-- Returns {1} (DONE: stored), or {2, record, pttl} (FOUND: the live record that was there).
local current = redis.call('GET', KEYS[1])
if current then
  return {2, current, redis.call('PTTL', KEYS[1])}
end
local completed = {state = 'completed', fingerprint = ARGV[1]}
completed[ARGV[2]] = ARGV[3]
redis.call('SET', KEYS[1], cjson.encode(completed), 'PX', ARGV[4])
return {1}
