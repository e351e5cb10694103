package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialTask;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a crash and restart of Redis (SIGKILL, then started again on the same files) does to a queue:
 * with an append-only file synced on every write, every task survives (queued ones run in order, a
 * running one keeps its lease); without persistence, everything stored is gone and the queue works
 * on for new tasks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueueRestartTests {

	private static final String QUEUE = "imports";

	private final List<AutoCloseable> toClose = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.toClose) {
			closeable.close();
		}
	}

	@Test
	void withAnAppendOnlyFileSyncedOnEveryWriteQueuedAndRunningTasksSurviveARestart() throws Exception {
		RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
		this.toClose.add(redis);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch started = new CountDownLatch(1);
		List<String> runs = new CopyOnWriteArrayList<>();
		RedisSerialQueue queue = instance(redis, (task, item) -> {
			runs.add(item.group() + "/" + item.sequence() + "#" + task.attempt());
			if (item.sequence() == 0 && item.group().equals("g")) {
				started.countDown();
				release.await(60, TimeUnit.SECONDS);
			}
		});
		String running = queue.submit(QUEUE, "g", new Item("g", 0, 0));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		for (int i = 1; i <= 5; i++) {
			queue.submit(QUEUE, "g", new Item("g", i, 0));
		}
		redis.restart();
		assertThat(redis.call("EXISTS", "q:{queue:" + QUEUE + "}:g:g")).isEqualTo(1L);
		// the running task's renewals reach the restarted server within its lease: it stays this run's
		Thread.sleep(3_000);
		release.countDown();
		await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == 6);
		assertThat(runs).containsExactly("g/0#1", "g/1#1", "g/2#1", "g/3#1", "g/4#1", "g/5#1");
		await().atMost(Duration.ofSeconds(10)).until(() -> queue.task(QUEUE, running).map(SerialTask::state)
			.orElse(null) == SerialTask.State.DONE);
		assertThat(queue.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void withoutPersistenceARestartLosesWhatWasStoredAndTheQueueWorksOn() throws Exception {
		RedisServer redis = RedisServer.start();
		this.toClose.add(redis);
		List<String> runs = new CopyOnWriteArrayList<>();
		RedisSerialQueue queue = instance(redis, (task, item) -> runs.add(item.group() + "/" + item.sequence()));
		queue.stop();
		String lost = queue.submit(QUEUE, "g", new Item("g", 0, 0));
		redis.restart();
		// calls fail at once until Lettuce has reconnected (it knows the connection is down)
		await().atMost(Duration.ofSeconds(30))
			.ignoreException(dev.lockstep.SerialQueueException.class)
			.until(() -> queue.task(QUEUE, lost).isEmpty());
		assertThat(queue.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		queue.start();
		queue.submit(QUEUE, "g", new Item("g", 1, 0));
		await().atMost(Duration.ofSeconds(30)).until(() -> runs.contains("g/1"));
		assertThat(runs).containsExactly("g/1");
	}

	private RedisSerialQueue instance(RedisServer redis, SerialQueueTests.ItemHandler handler) {
		LettuceConnectionFactory factory = RedisConnections.standalone(redis.host(), redis.port());
		RedisSerialQueue queue = new RedisSerialQueue(factory, SerialQueueTests.JSON);
		queue.setKeyPrefix("q:");
		queue.setCommandTimeout(Duration.ofSeconds(2));
		queue.setShutdownTimeout(Duration.ZERO);
		queue.setDefaults(new QueueSettings(Duration.ofSeconds(6), 3, Duration.ofMillis(100), Duration.ofMinutes(10)));
		queue.listen(QUEUE, 2, SerialQueueTests.items(handler), "restart test");
		queue.start();
		this.toClose.add(factory::destroy);
		this.toClose.add(0, queue::stop);
		return queue;
	}

}
