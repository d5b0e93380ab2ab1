-- Turns the reservation held by a token into a completed record, atomically. A holder whose lease ran
-- out while the key stayed absent completes it too: nobody else ran the action (late completion).
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] fingerprint (used when the reservation is gone),
-- ARGV[3] 'result' or 'notStoredReason', ARGV[4] its value, ARGV[5] ttl in milliseconds,
-- ARGV[6] the notification channel: the record's key is published there, waking its waiters,
-- ARGV[7] how: PUBLISH (the store's one channel) or SPUBLISH (Redis 7 Cluster: a sharded channel of
-- the namespace's, in its hash slot)
-- Returns {1} (DONE), {0} (NOT_HELD: another attempt holds or completed the key; nothing was
-- written, so a stale holder cannot overwrite the new owner's record), or {4, why} (UNREADABLE).
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4, 'not a string value'}
end
local fingerprint = ARGV[2]
if current then
  local decoded, record = pcall(cjson.decode, current)
  if not decoded or type(record) ~= 'table' or record.v ~= 1 then
    return {4, 'not a record of schema version 1'}
  end
  if record.state ~= 'pending' or record.token ~= ARGV[1] then
    return {0}
  end
  fingerprint = record.fingerprint
end
local completed = {v = 1, state = 'completed', fingerprint = fingerprint}
completed[ARGV[3]] = ARGV[4]
redis.call('SET', KEYS[1], cjson.encode(completed), 'PX', ARGV[5])
redis.call(ARGV[7], ARGV[6], KEYS[1])
return {1}
