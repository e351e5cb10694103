-- The count now (read-only). KEYS[1] the count: <prefix>{counter:K}. A missing count is 0.
return tonumber(redis.call('GET', KEYS[1]) or '0')
