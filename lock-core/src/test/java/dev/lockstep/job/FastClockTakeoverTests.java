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
 * An instance whose clock runs ahead by more than skew-tolerance fires every slot first; when the
 * slot's election leaves it to another (healthy) instance, its takeover waits until skew-tolerance
 * after the slot is due by Redis's clock. Before, it ran the slot skew-tolerance after its own
 * early firing: one fast clock made every slot run early (a 09:00 push at 08:00 with a clock an
 * hour ahead), not only the slots it was chosen for.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FastClockTakeoverTests {

	private static final long PERIOD = 60_000;

	private LettuceConnectionFactory factory;

	private StringRedisTemplate template;

	private RedisJobGuard fast;

	private String prefix;

	@BeforeEach
	void start() {
		this.factory = RedisConnections.standalone();
		this.template = new StringRedisTemplate(this.factory);
		this.template.afterPropertiesSet();
		this.prefix = RedisConnections.uniquePrefix();
		this.fast = new RedisJobGuard(this.factory, new GuardedJobs());
		this.fast.setKeyPrefix(this.prefix);
		this.fast.setInstanceId("fast");
		this.fast.setSkewTolerance(Duration.ofSeconds(1));
		this.fast.setShutdownTimeout(Duration.ZERO);
		this.fast.start();
	}

	@AfterEach
	void stop() {
		this.fast.stop();
		this.factory.destroy();
	}

	private long redisMillis() {
		return this.template.execute((RedisCallback<Long>) (RedisConnection connection) -> connection.serverCommands().time());
	}

	@Test
	void aSlotLeftToAHealthyInstanceIsNotRunBeforeItIsDueByRedisClock() throws Throwable {
		// a slot 30 s from now, which the fast instance (its clock 30 s ahead) fires now
		long now = redisMillis();
		long slot = now / 1000 * 1000 + 30_000;
		JobKeys keys = JobKeys.of(this.prefix, "push");
		// "healthy" is alive, fired the previous slot and was elected less recently than "fast"
		this.template.opsForHash().put(keys.members(), "seen:healthy", Long.toString(now));
		this.template.opsForHash().put(keys.members(), "fired:healthy", Long.toString(slot - PERIOD));
		this.template.opsForHash().put(keys.members(), "elected:healthy", Long.toString(slot - 2 * PERIOD));
		this.template.opsForHash().put(keys.members(), "seen:fast", Long.toString(now));
		this.template.opsForHash().put(keys.members(), "elected:fast", Long.toString(slot - PERIOD));
		this.template.opsForHash().put(keys.members(), "elected", Long.toString(slot - PERIOD));
		this.template.opsForZSet().add(keys.slots(), (slot - PERIOD) + ":e:fast", slot - PERIOD);
		this.template.opsForZSet().add(keys.slots(), (slot - PERIOD) + ":r:fast", slot - PERIOD);
		GuardedJob job = new GuardedJob("push", "Push.run()", Duration.ofMinutes(1), Duration.ZERO, "0 * * * * *", "UTC");
		AtomicLong ranAt = new AtomicLong();
		CountDownLatch ran = new CountDownLatch(1);
		Object result = this.fast.execute(job, Instant.ofEpochMilli(slot), () -> {
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
		// the healthy instance fires at the slot; give the fast one's takeover 4 s to show itself
		boolean early = ran.await(4, TimeUnit.SECONDS);
		assertThat(early ? slot - ranAt.get() : 0L).as("ms the slot ran before it was due by Redis's clock")
			.isLessThanOrEqualTo(1_000L);
	}

}
