-- Reserves a key for one attempt, atomically.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] the reservation's head as the client builds it: '3|p|' and the
-- fingerprint (the SHA-256's 32 bytes), ARGV[3] lease in milliseconds
-- Returns the fencing number, an integer (DONE: this token holds the reservation now, with a fencing
--         number greater than that of every earlier reservation), the record, a bulk string (FOUND: a
--         completed record is there), {2, record, pttl} (FOUND: another attempt's reservation is
--         there), or {4} / {4, value} (UNREADABLE: a value of another type, or one that is not a record
--         of schema version 3 or 2, is there; nothing was written; the client says why).
-- The two common answers are bare values, not tables: on Redis 6.2 a table reply costs the server about
-- as much as the GET it carries (the table, then its conversion, which looks for 'err' and 'ok' fields
-- and defers the array's length). The client reads a bare answer as the forms above (ScriptOutput).
-- Records are strings of schema version 3 (see RecordEncoding.java), the fingerprint as its 32 bytes
-- at 5..36: '3|p|<fingerprint><fence>|<token>' for a reservation, '3|c|<fingerprint><result JSON>' or
-- '3|n|<fingerprint><why not stored>' once completed. Version 2 records (the fingerprint in hex, then a
-- bar) are found as they are and read by the client; a version 2 reservation is an earlier client's,
-- never this token's. A reservation held by this very token is taken again, so that a reply lost to a
-- timeout and retried never makes the owner wait on its own marker.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4}
end
local last
if current then
  local head = string.sub(current, 1, 4)
  if head == '3|c|' or head == '3|n|' or head == '2|c|' or head == '2|n|' then
    return current
  end
  if head == '3|p|' then
    local bar = string.find(current, '|', 37, true)
    if not bar or string.sub(current, bar + 1) ~= ARGV[1] then
      return {2, current, redis.call('PTTL', KEYS[1])}
    end
    last = tonumber(string.sub(current, 37, bar - 1))
  elseif head == '2|p|' then
    return {2, current, redis.call('PTTL', KEYS[1])}
  else
    return {4, current}
  end
end
-- Writes after TIME need effects replication (the default from Redis 5; a no-op on Redis 7). Called
-- here, after the reads and before any write, so that a replay does not pay for it.
redis.replicate_commands()
-- The fence is the server's clock in microseconds, or, when this token takes its own live reservation
-- again, that reservation's fence plus one if the clock is not past it. The clock covers fences a
-- server lost (a restart from an older snapshot, a promoted replica that lagged): it has moved past
-- every fence handed out before, as long as it did not step back further than that. A key holds no
-- reservation of another attempt here (those are FOUND above): the last one ended (completed, released
-- or expired) at least a script's run ago, and the clock has moved past its fence by the time since.
-- (Microseconds since 1970 stay below 2^53, so a Lua number holds them exactly; TIME's two strings
-- are numbers to Lua's arithmetic.) Its digits are TIME's seconds and its microseconds padded to six:
-- string.format would cost the server more than the SET that follows.
local now = redis.call('TIME')
local fence = now[1] * 1000000 + now[2]
local digits
if last and last >= fence then
  fence = last + 1
  digits = string.format('%.0f', fence)
else
  digits = now[1] .. string.rep('0', 6 - #now[2]) .. now[2]
end
redis.call('SET', KEYS[1], ARGV[2] .. digits .. '|' .. ARGV[1], 'PX', ARGV[3])
return fence
