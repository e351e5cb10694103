package dev.lockstep.benchmark;

import java.util.Locale;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's {@link RedisLockRegistry} on a Lettuce connection factory of its own, in
 * either of its modes: pub/sub (waiters subscribe to unlock messages) or spin (its default:
 * waiters retry every 100 ms).
 */
final class RedisLockRegistryClient implements LockClient {

	private final LettuceConnectionFactory connections;

	private final RedisLockRegistry registry;

	RedisLockRegistryClient(BenchmarkRedis redis, RedisLockType type) {
		this.connections = redis.connect();
		// one registry key per mode: the two modes never share a lock
		this.registry = new RedisLockRegistry(this.connections, "bench-registry-" + type.name().toLowerCase(Locale.ROOT));
		this.registry.setRedisLockType(type);
	}

	@Override
	public Hold lock(String key) {
		Lock lock = this.registry.obtain(key);
		lock.lock();
		return lock::unlock;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connections.destroy();
	}

}
