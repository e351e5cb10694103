package dev.lockstep.benchmark;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.lock.RedisLockService;

/**
 * Lockstep's permits: {@link RedisLockService#acquirePermit} (watchdog-renewed lease, FIFO
 * event-driven wait) on a connection factory of its own, released by closing the handle.
 */
final class LockstepPermitClient implements PermitClient {

	/** Longer than any wait a working run produces; a wait this long means something is broken. */
	private static final Duration WAIT = Duration.ofMinutes(1);

	private final LettuceConnectionFactory connections;

	private final RedisLockService locks;

	LockstepPermitClient(BenchmarkRedis redis) {
		this.connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
		this.connections.afterPropertiesSet();
		this.connections.start();
		this.locks = new RedisLockService(this.connections);
		this.locks.setKeyPrefix("bench:");
		this.locks.start();
	}

	@Override
	public Permit acquire(String key) {
		LockHandle handle = this.locks.acquirePermit(key, PermitScenario.PERMITS, WAIT);
		return handle::close;
	}

	@Override
	public void close() {
		this.locks.stop();
		this.connections.destroy();
	}

}
