-- Turns the reservation held by a token into a completed record, atomically. A holder whose lease ran
-- out while the key stayed absent completes it too: nobody else ran the action (late completion).
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] fingerprint (its 32 bytes; used when the reservation is gone),
-- ARGV[3] the completed record's header: '3|c|' (ARGV[4] is the result's JSON) or '3|n|' (ARGV[4] is
-- why the result was not stored), ARGV[5] ttl in milliseconds, ARGV[6] the notification channel,
-- ARGV[7] how: PUBLISH (the store's one channel) or SPUBLISH (Redis 7 Cluster: a sharded channel of the
-- namespace's, in its hash slot)
-- The message says how the reservation ended, its lengths in bytes:
-- '3|c|<#key>|<#token>|<key><token><completed record>', or, for a record above 64 KiB,
-- '3|u|<#key>|0|<key>' (ended: waiters read the record).
-- Returns {1} (DONE), {0} (NOT_HELD: another attempt holds or completed the key; nothing was
-- written, so a stale holder cannot overwrite the new owner's record), or {4} / {4, value}
-- (UNREADABLE: see reserve.lua, which also describes the record).
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
local fingerprint = ARGV[2]
if current then
  local head = string.sub(current, 1, 4)
  if head ~= '3|p|' then
    return (head == '3|c|' or head == '3|n|' or head == '2|p|' or head == '2|c|' or head == '2|n|') and {0}
        or {4, current}
  end
  local bar = string.find(current, '|', 37, true)
  if not bar or string.sub(current, bar + 1) ~= ARGV[1] then
    return {0}
  end
  fingerprint = string.sub(current, 5, 36)
end
local completed = ARGV[3] .. fingerprint .. ARGV[4]
redis.call('SET', KEYS[1], completed, 'PX', ARGV[5])
if #completed > 65536 then
  redis.call(ARGV[7], ARGV[6], '3|u|' .. #KEYS[1] .. '|0|' .. KEYS[1])
else
  redis.call(ARGV[7], ARGV[6], '3|c|' .. #KEYS[1] .. '|' .. #ARGV[1] .. '|' .. KEYS[1] .. ARGV[1] .. completed)
end
return {1}
