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

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.GuardedJob;
import dev.lockstep.lock.RedisConnections;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Takeovers, by an instance whose job was left to another that never starts it:
 * <ul>
 * <li>takeovers of different jobs on one instance do not wait for each other: a takeover that runs
 * a long job holds up no other job's takeover, which comes after skew-tolerance as documented
 * (before, every takeover and wait for the guard of an instance ran on one thread, so a slot left
 * to an instance that died was taken over only once the other run ended, and not at all past the
 * slot horizon, though this instance was alive and idle);</li>
 * <li>an instance whose clock runs ahead by more than skew-tolerance fires every slot first; when
 * the slot's election leaves it to another (healthy) instance, its takeover waits until
 * skew-tolerance after the slot is due by Redis's clock (before, it ran the slot skew-tolerance
 * after its own early firing: one fast clock made every slot run early).</li>
 * </ul>
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobTakeoverTests {

	private static final long PERIOD = 60_000;

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

	private long redisMillis() {
		return this.template.execute((RedisCallback<Long>) (RedisConnection connection) -> connection.serverCommands().time());
	}

	@Test
	void aSlotLeftToAHealthyInstanceIsNotRunBeforeItIsDueByRedisClock() throws Throwable {
		// a slot 30 s from now, which this instance (its clock 30 s ahead) fires now
		long now = redisMillis();
		long slot = now / 1000 * 1000 + 30_000;
		JobKeys keys = JobKeys.of(this.prefix, "push");
		// "healthy" is alive, fired the previous slot and was elected less recently than this instance
		this.template.opsForHash().put(keys.members(), "seen:healthy", Long.toString(now));
		this.template.opsForHash().put(keys.members(), "fired:healthy", Long.toString(slot - PERIOD));
		this.template.opsForHash().put(keys.members(), "elected:healthy", Long.toString(slot - 2 * PERIOD));
		this.template.opsForHash().put(keys.members(), "seen:alive", Long.toString(now));
		this.template.opsForHash().put(keys.members(), "elected:alive", Long.toString(slot - PERIOD));
		this.template.opsForHash().put(keys.members(), "elected", Long.toString(slot - PERIOD));
		this.template.opsForZSet().add(keys.slots(), (slot - PERIOD) + ":e:alive", slot - PERIOD);
		this.template.opsForZSet().add(keys.slots(), (slot - PERIOD) + ":r:alive", slot - PERIOD);
		GuardedJob job = new GuardedJob("push", "Push.run()", Duration.ofMinutes(1), Duration.ZERO, "0 * * * * *", "UTC");
		AtomicLong ranAt = new AtomicLong();
		CountDownLatch ran = new CountDownLatch(1);
		Object result = this.guard.execute(job, Instant.ofEpochMilli(slot), () -> {
			ranAt.set(redisMillis());
			ran.countDown();
			return null;
		}, () -> {
			ranAt.set(redisMillis());
			ran.countDown();
			return null;
		});
		assertThat(result).isNull();
		assertThat(this.template.opsForZSet().rangeByScore(keys.slots(), slot, slot)).as("elected the healthy instance")
			.contains(slot + ":e:healthy");
		// the healthy instance fires at the slot; give this one's takeover 4 s to show itself
		boolean early = ran.await(4, TimeUnit.SECONDS);
		assertThat(early ? slot - ranAt.get() : 0L).as("ms the slot ran before it was due by Redis's clock")
			.isLessThanOrEqualTo(1_000L);
	}

}
