-- Writes an instance's heartbeat record (console:instance:<id>, see InstanceRecords) in place: every
-- field at once, with its expiry, so that a reader never sees it missing or half written. HSET with
-- several fields, not HMSET: the ACL rule docs/security.md gives allows HSET only.
-- KEYS[1] the record; ARGV[1] ms it is kept; ARGV[2..] field, value, field, value...
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
