package dev.lockstep.benchmark;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.lock.RedisLockService;

/**
 * Lockstep: a {@link RedisLockService} on a Lettuce connection factory of its own; its locks, and
 * its permits ({@link RedisLockService#acquirePermit}: watchdog-renewed lease, FIFO event-driven
 * wait), released by closing the handle.
 */
final class LockstepClient implements LockClient, PermitClient {

	/** Longer than any wait a working run produces; a wait this long means something is broken. */
	private static final Duration WAIT = Duration.ofMinutes(1);

	private final LettuceConnectionFactory connections;

	private final RedisLockService locks;

	LockstepClient(BenchmarkRedis redis) {
		this.connections = redis.connect();
		this.locks = LockstepServices.locks(this.connections);
	}

	@Override
	public Hold lock(String key) {
		LockHandle handle = this.locks.acquire(key, WAIT);
		return handle::close;
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
