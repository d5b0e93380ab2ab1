-- Writes after TIME need effects replication (the default from Redis 5; a no-op on Redis 7).
redis.replicate_commands()
-- Reserves a key for one attempt, atomically.
-- KEYS[1] the record's key, KEYS[2] the namespace's fence counter (same hash slot as the record)
-- ARGV[1] owner token, ARGV[2] fingerprint, ARGV[3] lease in milliseconds,
-- ARGV[4] how long the fence counter outlives this reservation, in milliseconds
-- Returns {1, fence} (DONE: this token holds the reservation now, with a fencing number greater than
--         that of every earlier reservation), {2, record, pttl} (FOUND: another live record is there),
--         or {4, why} (UNREADABLE: a value this store cannot read is there; nothing was written).
-- A pending record held by this very token is taken again, so that a reply lost to a
-- timeout and retried never makes the owner wait on its own marker.
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4, 'not a string value: ' .. tostring(current.err or current)}
end
if current then
  local decoded, record = pcall(cjson.decode, current)
  if not decoded or type(record) ~= 'table' then
    return {4, 'not a JSON object'}
  end
  if record.v ~= 1 then
    return {4, 'schema version ' .. tostring(record.v) .. ', this store reads 1'}
  end
  if record.state ~= 'pending' or record.token ~= ARGV[1] then
    return {2, current, redis.call('PTTL', KEYS[1])}
  end
end
-- A counter that is absent (never made, or expired after its retention) starts from the server's
-- clock in microseconds, so that one recreated after expiry still lies above every number it gave.
if redis.call('EXISTS', KEYS[2]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local pending = cjson.encode({v = 1, state = 'pending', token = ARGV[1], fingerprint = ARGV[2], fence = fence})
redis.call('SET', KEYS[1], pending, 'PX', ARGV[3])
return {1, fence}
