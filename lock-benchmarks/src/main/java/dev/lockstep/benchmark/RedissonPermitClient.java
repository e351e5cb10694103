package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link RPermitExpirableSemaphore}, as its documentation sets one up:
 * {@code trySetPermits(permits)} once per key, then {@code acquire(leaseTime, unit)} (no watchdog:
 * the permit is freed when its lease ends, whatever the holder is doing) and {@code release(id)}.
 */
final class RedissonPermitClient implements PermitClient {

	/** Longer than any hold here, as long as Lockstep's default lease: a lease never ends during a run. */
	static final Duration LEASE = Duration.ofSeconds(30);

	private final RedissonClient client;

	private final Map<String, RPermitExpirableSemaphore> semaphores = new ConcurrentHashMap<>();

	RedissonPermitClient(BenchmarkRedis redis) {
		this.client = BenchmarkRedis.redisson(redis.host(), redis.port());
	}

	@Override
	public Permit acquire(String key) throws InterruptedException {
		RPermitExpirableSemaphore semaphore = this.semaphores.computeIfAbsent(key, this::semaphore);
		String id = semaphore.acquire(LEASE.toMillis(), TimeUnit.MILLISECONDS);
		return () -> semaphore.release(id);
	}

	private RPermitExpirableSemaphore semaphore(String key) {
		RPermitExpirableSemaphore semaphore = this.client.getPermitExpirableSemaphore("bench-redisson-permit:" + key);
		semaphore.trySetPermits(PermitScenario.PERMITS);
		return semaphore;
	}

	@Override
	public void close() {
		this.client.shutdown();
	}

}
