-- Turns the reservation held by a token into a completed record, atomically. A holder whose lease ran
-- out while the key stayed absent completes it too: nobody else ran the action (late completion).
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] the completed record as the client builds it: '3|c|' and the result's
-- JSON, or '3|n|' and why the result was not stored, either with the request's fingerprint (its 32
-- bytes) between, ARGV[3] ttl in milliseconds, ARGV[4] the notification channel, ARGV[5] how: PUBLISH
-- (the store's one channel) or SPUBLISH (Redis 7 Cluster: a sharded channel of the namespace's, in its
-- hash slot), ARGV[6] the message's head, as the client builds it (see below).
-- The message says how the reservation ended, its lengths in bytes:
-- '3|c|<#key>|<#token>|<key><token><completed record>' (ARGV[6] is all of it but the record), or, for
-- a record above 64 KiB, '3|u|<#key>|0|<key>' (ended: waiters read the record; ARGV[6] is all of it).
-- Returns 1 (DONE), 0 (NOT_HELD: another attempt holds or completed the key; nothing was written, so a
-- stale holder cannot overwrite the new owner's record), or {4} / {4, value} (UNREADABLE: see
-- reserve.lua, which also describes the record and why the common answers are bare integers).
-- The client builds every string it can: building them here, out of the record's pieces, cost the
-- server more than the SET and the PUBLISH themselves.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
local completed = ARGV[2]
if current then
  local head = string.sub(current, 1, 4)
  if head ~= '3|p|' then
    return (head == '3|c|' or head == '3|n|' or head == '2|p|' or head == '2|c|' or head == '2|n|') and 0
        or {4, current}
  end
  local bar = string.find(current, '|', 37, true)
  if not bar or string.sub(current, bar + 1) ~= ARGV[1] then
    return 0
  end
  -- A live reservation keeps its own fingerprint: the client's is the same unless a caller completes
  -- with another one than it reserved with.
  local fingerprint = string.sub(current, 5, 36)
  if fingerprint ~= string.sub(completed, 5, 36) then
    completed = string.sub(completed, 1, 4) .. fingerprint .. string.sub(completed, 37)
  end
end
redis.call('SET', KEYS[1], completed, 'PX', ARGV[3])
-- Byte 3 of the head is how it ended: 117 is 'u', a record too large to carry.
if string.byte(ARGV[6], 3) == 117 then
  redis.call(ARGV[5], ARGV[4], ARGV[6])
else
  redis.call(ARGV[5], ARGV[4], ARGV[6] .. completed)
end
return 1
