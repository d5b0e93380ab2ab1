-- Reserves a key for one attempt, atomically.
-- KEYS[1] the record's key, KEYS[2] the namespace's fence counter (same hash slot as the record)
-- ARGV[1] owner token, ARGV[2] fingerprint, ARGV[3] lease in milliseconds (the counter's too: it
-- never outlives the reservation; complete and release delete it)
-- Returns {1, fence} (DONE: this token holds the reservation now, with a fencing number greater than
--         that of every earlier reservation), {2, record} (FOUND: a completed record is there),
--         {2, record, pttl} (FOUND: another attempt's reservation is there), or {4} / {4, value}
--         (UNREADABLE: a value of another type, or one that is not a record of schema version 2, is
--         there; nothing was written; the client says why).
-- Records are strings of schema version 2 (see RecordEncoding.java): '2|p|<fingerprint>|<token>' for
-- a reservation, '2|c|<fingerprint>|<result JSON>' or '2|n|<fingerprint>|<why not stored>' once
-- completed. A reservation held by this very token is taken again, so that a reply lost to a timeout
-- and retried never makes the owner wait on its own marker.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
if current then
  local head = string.sub(current, 1, 4)
  if head == '2|c|' or head == '2|n|' then
    return {2, current}
  end
  if head ~= '2|p|' then
    return {4, current}
  end
  local bar = string.find(current, '|', 5, true)
  if not bar or string.sub(current, bar + 1) ~= ARGV[1] then
    return {2, current, redis.call('PTTL', KEYS[1])}
  end
end
-- Writes after TIME need effects replication (the default from Redis 5; a no-op on Redis 7). Called
-- here, after the reads and before any write, so that a replay does not pay for it.
redis.replicate_commands()
-- The fence is the greater of the server's clock in microseconds and the namespace's last fence plus
-- one, and becomes the last fence. The clock covers a counter the server lost (a restart from an older
-- snapshot, a promoted replica that lagged): it has moved past every fence handed out before, as long
-- as it did not step back further than that. The counter covers a clock that stepped back while it is
-- kept, and several reservations within one microsecond. Once the counter is gone (the reservation
-- ended or expired) the clock has moved past its last fence by at least the time since. (Microseconds
-- since 1970 stay below 2^53, so a Lua number holds them exactly.)
local now = redis.call('TIME')
local fence = tonumber(now[1]) * 1000000 + tonumber(now[2])
local counter = redis.call('GET', KEYS[2])
local last = counter and tonumber(counter)
if last and last >= fence then
  fence = last + 1
end
redis.call('SET', KEYS[2], string.format('%.0f', fence), 'PX', ARGV[3])
redis.call('SET', KEYS[1], '2|p|' .. ARGV[2] .. '|' .. ARGV[1], 'PX', ARGV[3])
return {1, fence}
