package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.RedisCallback;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 24's queue leftovers: a redriven task runs next, at once, even while its group waits out
 * a retry's backoff; and a queue that has drained leaves nothing in Redis once its deduplication
 * window has passed, also after failures, dead letters and redrives.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueueCleanupTests {

	private static final Logger logger = LoggerFactory.getLogger(QueueCleanupTests.class);

	private static final String QUEUE = "imports";

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	@AfterEach
	void stop() {
		this.instances.forEach((queue) -> {
			queue.setShutdownTimeout(Duration.ZERO);
			queue.stop();
		});
	}

	@Test
	void aRedrivenTaskRunsAtOnceWhileItsGroupWaitsOutARetrysBackoff() throws Exception {
		QueueScripts scripts = new QueueScripts(new RedisScripts(this.redis.factory()));
		QueueKeys keys = QueueKeys.of(this.redis.prefix(), QUEUE);
		Duration lease = Duration.ofMinutes(1);
		scripts.submit(keys, "dead-one", "g", "{}", null, Duration.ofMinutes(1)).get(10, TimeUnit.SECONDS);
		QueueScripts.Taken first = scripts.take(keys, "w:r:1", 3, lease).get(10, TimeUnit.SECONDS);
		assertThat(first.task().id()).isEqualTo("dead-one");
		// buried at once (an unreadable payload)
		assertThat(scripts.fail(keys, "dead-one", "w:r:1", "unreadable", 0, Duration.ZERO).get(10, TimeUnit.SECONDS)).isEqualTo(2);
		scripts.submit(keys, "retried", "g", "{}", null, Duration.ofMinutes(1)).get(10, TimeUnit.SECONDS);
		assertThat(scripts.take(keys, "w:r:2", 3, lease).get(10, TimeUnit.SECONDS).task().id()).isEqualTo("retried");
		// its retry is an hour away: the group waits for it
		assertThat(scripts.fail(keys, "retried", "w:r:2", "boom", 3, Duration.ofHours(1)).get(10, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(scripts.take(keys, "w:r:3", 3, lease).get(10, TimeUnit.SECONDS).task()).isNull();

		assertThat(scripts.redrive(keys, "dead-one", "call-1", Duration.ofMinutes(1)).get(10, TimeUnit.SECONDS)).isEqualTo(1);
		QueueScripts.Taken redriven = scripts.take(keys, "w:r:4", 3, lease).get(10, TimeUnit.SECONDS);
		assertThat(redriven.task()).as("the redriven task runs at once").isNotNull();
		assertThat(redriven.task().id()).isEqualTo("dead-one");
		assertThat(redriven.task().attempt()).isEqualTo(1);
		assertThat(scripts.take(keys, "w:r:5", 3, lease).get(10, TimeUnit.SECONDS).task())
			.as("one task of the group at a time").isNull();
		scripts.finish(keys, "dead-one", "w:r:4", Duration.ofMinutes(1)).get(10, TimeUnit.SECONDS);
		assertThat(scripts.take(keys, "w:r:6", 3, lease).get(10, TimeUnit.SECONDS).task().id())
			.as("then the retried task, its backoff no longer waited for").isEqualTo("retried");
	}

	@Test
	void aDrainedQueueLeavesNothingInRedisOnceItsDeduplicationWindowPassed() throws Exception {
		Duration window = Duration.ofSeconds(1);
		Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> succeeded = new ConcurrentHashMap<>();
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setInstanceId("worker");
		queue.setDefaults(new QueueSettings(Duration.ofSeconds(5), 2, Duration.ofMillis(20), window));
		// sequence 1 fails once and then runs; sequence 2 fails on every attempt until redriven twice
		queue.listen(QUEUE, 4, SerialQueueTests.items((task, item) -> {
			int attempt = attempts.computeIfAbsent(task.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if ((item.sequence() == 1 && attempt == 1) || (item.sequence() == 2 && attempt <= 4)) {
				throw new IllegalStateException("attempt " + attempt + " of " + item);
			}
			succeeded.computeIfAbsent(task.id(), (id) -> new AtomicInteger()).incrementAndGet();
		}), "cleanup handler");
		queue.start();
		this.instances.add(queue);
		// measured once its scripts are loaded and its connections open
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats(QUEUE).queued() == 0);
		long before = usedMemory();
		List<String> ids = new ArrayList<>();
		for (int group = 0; group < 20; group++) {
			for (int sequence = 0; sequence < 4; sequence++) {
				ids.add(queue.submit(QUEUE, "g" + group, new Item("g" + group, sequence, 0), "m-" + group + "-" + sequence));
			}
		}
		for (int redrive = 0; redrive < 2; redrive++) {
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				QueueStats stats = queue.stats(QUEUE);
				return stats.queued() + stats.running() == 0 && stats.dead() == 20;
			});
			for (SerialTask dead : queue.deadLetters(QUEUE, 100)) {
				assertThat(queue.redrive(QUEUE, dead.id())).isTrue();
			}
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			QueueStats stats = queue.stats(QUEUE);
			return stats.queued() + stats.running() + stats.dead() == 0;
		});
		assertThat(succeeded).as("tasks that ran to the end").hasSize(ids.size()).allSatisfy((id, runs) -> assertThat(runs).hasValue(1));
		// the workers still listen, idle: the queue keeps only the mark that they may be (expiring)
		String idle = this.redis.prefix() + "{queue:" + QUEUE + "}:idle";
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
			.untilAsserted(() -> assertThat(this.redis.keys()).as("keys left once drained and the window passed")
				.containsExactly(idle));
		assertThat(this.redis.template().getExpire(idle, TimeUnit.MILLISECONDS)).as("the idle mark expires")
			.isBetween(1L, QueueScripts.IDLE_MARK.toMillis());
		logger.info("Redis used_memory before the run {} bytes, after it drained {} bytes", before, usedMemory());
	}

	private long usedMemory() {
		return this.redis.template().execute((RedisCallback<Long>) (connection) -> Long.parseLong(
				connection.serverCommands().info("memory").getProperty("used_memory")));
	}

}
