package dev.lockstep.benchmark;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/** Redisson's {@link RLock} (its default, non-fair lock with the watchdog lease), default settings. */
final class RedissonLockClient implements LockClient {

	private final RedissonClient client;

	RedissonLockClient(BenchmarkRedis redis) {
		this.client = BenchmarkRedis.redisson(redis.host(), redis.port());
	}

	@Override
	public Hold lock(String key) {
		RLock lock = this.client.getLock("bench-redisson:" + key);
		lock.lock();
		return lock::unlock;
	}

	@Override
	public void close() {
		this.client.shutdown();
	}

}
