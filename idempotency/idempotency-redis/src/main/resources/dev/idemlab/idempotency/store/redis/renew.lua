-- Extends the live reservation held by a token: the holder's heartbeat.
-- KEYS[1] the record's key
-- ARGV[1] owner token, ARGV[2] lease in milliseconds
-- Returns {1} (DONE), {0} (NOT_HELD: the lease ran out or someone else's record is there), or
--         {4, why} (UNREADABLE).
local ok, current = pcall(redis.call, 'GET', KEYS[1])
if not ok then
  return {4, 'not a string value'}
end
if not current then
  return {0}
end
local decoded, record = pcall(cjson.decode, current)
if not decoded or type(record) ~= 'table' or record.v ~= 1 then
  return {4, 'not a record of schema version 1'}
end
if record.state ~= 'pending' or record.token ~= ARGV[1] then
  return {0}
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1}
