package dev.lockstep.job;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.redis.RedisScripts;

import static org.assertj.core.api.Assertions.assertThat;

/** The job claim's edge cases on a real Redis and real schedulers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobClaimTests {

	private static final long SLOT = 1_700_000_000_000L;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@Test
	void aClaimSentTwiceRunsOnceAndAnUnansweredClaimCanBeUndone() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			JobScripts scripts = new JobScripts(redis);
			JobKeys keys = JobKeys.of(RedisConnections.uniquePrefix(), "daily");
			List<Object> first = scripts.claim(keys, "i1", "i1:a1", 600_000, SLOT, false, 15_000, 256).get();
			// the same command again, as a client replays it after a reconnect
			List<Object> replay = scripts.claim(keys, "i1", "i1:a1", 600_000, SLOT, false, 15_000, 256).get();
			assertThat(first.get(0)).isEqualTo(1L);
			assertThat(replay.get(0)).isEqualTo(1L);
			assertThat(replay.get(1)).isEqualTo(first.get(1));

			assertThat(scripts.unclaim(keys, "i1:a1", "i1", SLOT).get()).isEqualTo(1L);
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			template.afterPropertiesSet();
			assertThat(template.hasKey(keys.guard())).isFalse();
			List<Object> again = scripts.claim(keys, "i2", "i2:b1", 600_000, SLOT, true, 15_000, 256).get();
			assertThat(again.get(0)).as("the slot is free again").isEqualTo(1L);
			assertThat(scripts.unclaim(keys, "i1:a1", "i1", SLOT).get()).as("not i1's any more").isZero();
		}
	}

	@Test
	void eachFiringKnowsItsOwnCronSlotWithAReschedulingOrAnAsynchronousScheduler() throws Exception {
		ThreadPoolTaskScheduler pool = new ThreadPoolTaskScheduler();
		pool.initialize();
		SimpleAsyncTaskScheduler async = new SimpleAsyncTaskScheduler();
		async.start();
		try {
			for (TaskScheduler delegate : List.of(pool, async)) {
				FiringScheduler scheduler = new FiringScheduler(delegate);
				List<String> wrong = new CopyOnWriteArrayList<>();
				List<Instant> slots = new CopyOnWriteArrayList<>();
				ScheduledFuture<?> task = scheduler.schedule(() -> {
					Instant now = Instant.now();
					Instant slot = Firing.current().scheduledTime();
					slots.add(slot);
					if (slot.isAfter(now) || now.toEpochMilli() - slot.toEpochMilli() > 900) {
						wrong.add(slot + " read at " + now);
					}
				}, new CronTrigger("* * * * * *"));
				Thread.sleep(3500);
				task.cancel(false);
				assertThat(wrong).as("firings given another slot by %s", delegate).isEmpty();
				assertThat(slots).as("slots seen by %s", delegate).hasSizeGreaterThanOrEqualTo(2).doesNotHaveDuplicates();
			}
		}
		finally {
			pool.shutdown();
			async.stop();
		}
	}

}
