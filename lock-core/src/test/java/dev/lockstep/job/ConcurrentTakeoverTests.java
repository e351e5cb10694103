package dev.lockstep.job;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.GuardedJob;
import dev.lockstep.lock.RedisConnections;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Takeovers of different jobs on one instance do not wait for each other: a takeover that runs a
 * long job holds up no other job's takeover, which comes after skew-tolerance as documented.
 * Before, every takeover and wait for the guard of an instance ran on one thread, so a slot left
 * to an instance that died was taken over only once the other run ended, and not at all past the
 * slot horizon (5 min), though this instance was alive and idle.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConcurrentTakeoverTests {

	private LettuceConnectionFactory factory;

	private StringRedisTemplate template;

	private RedisJobGuard guard;

	private String prefix;

	/** Ends the long job's run. */
	private final CountDownLatch longRunEnds = new CountDownLatch(1);

	@BeforeEach
	void start() {
		this.factory = RedisConnections.standalone();
		this.template = new StringRedisTemplate(this.factory);
		this.template.afterPropertiesSet();
		this.prefix = RedisConnections.uniquePrefix();
		this.guard = new RedisJobGuard(this.factory, new GuardedJobs());
		this.guard.setKeyPrefix(this.prefix);
		this.guard.setInstanceId("alive");
		this.guard.setSkewTolerance(Duration.ofSeconds(1));
		this.guard.setShutdownTimeout(Duration.ZERO);
		this.guard.start();
	}

	@AfterEach
	void stop() {
		this.longRunEnds.countDown();
		this.guard.stop();
		this.factory.destroy();
	}

	/** Slot {@code slot} of {@code job} was elected for instance "dead" (its first claim), which then died. */
	private void electedForDeadInstance(String job, long slot) {
		JobKeys keys = JobKeys.of(this.prefix, job);
		this.template.opsForZSet().add(keys.slots(), slot + ":e:dead", slot);
		this.template.opsForHash().put(keys.members(), "seen:dead", Long.toString(System.currentTimeMillis()));
		this.template.opsForHash().put(keys.members(), "fired:dead", Long.toString(slot));
	}

	private static GuardedJob job(String name) {
		return new GuardedJob(name, name + ".run()", Duration.ofMinutes(1), Duration.ZERO, "* * * * * *", "UTC");
	}

	/** How long after its firing the slot of "short" left to the dead instance is taken over, with "long" taking over beside it or not. */
	private long takeoverDelayMillis(boolean longTakeoverRunning) throws Throwable {
		long slot = System.currentTimeMillis() / 1000 * 1000;
		CountDownLatch longStarted = new CountDownLatch(1);
		if (longTakeoverRunning) {
			electedForDeadInstance("long", slot);
			Object result = this.guard.execute(job("long"), Instant.ofEpochMilli(slot), () -> "not chosen", () -> {
				longStarted.countDown();
				this.longRunEnds.await(20, TimeUnit.SECONDS);
				return null;
			});
			assertThat(result).as("left to the dead instance").isNull();
			assertThat(longStarted.await(5, TimeUnit.SECONDS)).as("the long job taken over").isTrue();
		}
		electedForDeadInstance("short", slot);
		AtomicLong ranAt = new AtomicLong();
		CountDownLatch shortRan = new CountDownLatch(1);
		long fired = System.nanoTime();
		Object result = this.guard.execute(job("short"), Instant.ofEpochMilli(slot), () -> "not chosen", () -> {
			ranAt.set(System.nanoTime());
			shortRan.countDown();
			return null;
		});
		assertThat(result).isNull();
		assertThat(shortRan.await(30, TimeUnit.SECONDS)).as("the short job's slot taken over at all").isTrue();
		return TimeUnit.NANOSECONDS.toMillis(ranAt.get() - fired);
	}

	@Test
	void controlTakeoverComesAfterTheSkewTolerance() throws Throwable {
		assertThat(takeoverDelayMillis(false)).as("takeover after skew-tolerance (1s)").isBetween(900L, 4_000L);
	}

	@Test
	void aLongTakeoverOfAnotherJobHoldsUpThisJobsTakeover() throws Throwable {
		// "the instance that fired first runs it after skew-tolerance", while the other job still runs
		assertThat(takeoverDelayMillis(true)).as("takeover after skew-tolerance (1s), while the other job's run goes on")
			.isBetween(900L, 4_000L);
	}

}
