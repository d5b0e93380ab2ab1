-- Reads the live record and, for a reservation, its remaining time in one round trip.
-- KEYS[1] the record's key
-- Returns the record, a bulk string (FOUND: completed, or not a reservation), {2, record, pttl}
--         (FOUND: a reservation), nil (ABSENT; expired keys are absent: Redis decides), or {4}
--         (UNREADABLE: a value of another type is there). The client reads the record (see reserve.lua,
--         also for why the common answers are bare values) and refuses what it cannot read.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
-- Byte 3 is the state: 112 is 'p', a reservation, whose lease is its PTTL. A missing key is false,
-- which is nil to the client.
if not current or string.byte(current, 3) ~= 112 then
  return current
end
return {2, current, redis.call('PTTL', KEYS[1])}
