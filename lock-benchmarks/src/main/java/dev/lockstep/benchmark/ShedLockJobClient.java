package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock's {@link RedisLockProvider} (default settings) on a Lettuce connection factory of its
 * own, each firing through {@link DefaultLockingTaskExecutor} as its scheduler integration would
 * run it: lockAtMostFor 10 minutes, lockAtLeastFor 0, like Lockstep's job in this scenario.
 */
final class ShedLockJobClient implements GuardedJobClient {

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofMinutes(10);

	private final LettuceConnectionFactory connections;

	private final LockingTaskExecutor executor;

	private final LongAdder runs = new LongAdder();

	/** @param environment the provider's environment, the middle part of its keys */
	ShedLockJobClient(BenchmarkRedis redis, String environment) {
		this.connections = redis.connect();
		this.executor = new DefaultLockingTaskExecutor(new RedisLockProvider(this.connections, environment));
	}

	@Override
	public void fire() {
		LockConfiguration configuration = new LockConfiguration(ClockProvider.now(), GuardedEmptyJob.NAME,
				LOCK_AT_MOST_FOR, Duration.ZERO);
		this.executor.executeWithLock((Runnable) this.runs::increment, configuration);
	}

	@Override
	public long runs() {
		return this.runs.sum();
	}

	@Override
	public void close() {
		this.connections.destroy();
	}

}
