package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three worker instances, each reaching Redis through its own proxy that cuts all its connections
 * every 0.5 to 2 s, and whose replies come 20 ms late (so a cut nearly always catches a command
 * Redis ran but whose reply was lost, which Lettuce sends again after it reconnects): every task
 * starts once, on attempt 1, runs to its end once, alone in its group and in order, and nothing but
 * the expiring records of done tasks is left in Redis.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class QueueConnectionCutTests {

	private static final Logger logger = LoggerFactory.getLogger(QueueConnectionCutTests.class);

	private static final String QUEUE = "imports";

	private static final int GROUPS = 60;

	private static final int TASKS = 10;

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final AtomicBoolean cutting = new AtomicBoolean(true);

	@AfterEach
	void stop() {
		this.cutting.set(false);
		this.instances.forEach((queue) -> {
			queue.setShutdownTimeout(Duration.ZERO);
			queue.stop();
		});
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.proxies.forEach(FaultProxy::close);
	}

	@Test
	void everyTaskStartsOnceOnItsFirstAttemptWhileConnectionsAreCut() throws Exception {
		GroupProbe probe = new GroupProbe();
		Map<String, List<Integer>> starts = new ConcurrentHashMap<>();
		for (int i = 0; i < 3; i++) {
			FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
			proxy.latency(Duration.ZERO, Duration.ofMillis(20));
			this.proxies.add(proxy);
			LettuceConnectionFactory factory = RedisConnections.standalone(proxy.host(), proxy.port());
			this.factories.add(factory);
			RedisSerialQueue worker = new RedisSerialQueue(factory, SerialQueueTests.JSON);
			worker.setKeyPrefix(this.redis.prefix());
			worker.setInstanceId("worker-" + i);
			// a lease long beside the cuts: a task runs again when its end cannot reach Redis within its
			// lease (at least once, documented); this test is about replies lost, not about a machine so
			// loaded that reconnecting takes longer than a lease
			worker.setDefaults(new QueueSettings(Duration.ofSeconds(10), 3, Duration.ofMillis(100), Duration.ofMinutes(1)));
			worker.listen(QUEUE, 4, SerialQueueTests.items((task, item) -> {
				starts.computeIfAbsent(task.id(), (id) -> new CopyOnWriteArrayList<>()).add(task.attempt());
				probe.run(task.id(), item.group(), item.sequence(), TimeUnit.MILLISECONDS.toNanos(item.workMillis()));
			}), "cut worker " + i);
			worker.start();
			this.instances.add(worker);
		}
		RedisSerialQueue submitter = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		submitter.setKeyPrefix(this.redis.prefix());
		submitter.setInstanceId("submitter");
		this.instances.add(submitter);

		Random random = new Random(34);
		for (FaultProxy proxy : this.proxies) {
			long seed = random.nextLong();
			DaemonThreads.start("cutter", () -> cut(proxy, new Random(seed)));
		}
		List<String> ids = new ArrayList<>();
		for (int sequence = 0; sequence < TASKS; sequence++) {
			for (int group = 0; group < GROUPS; group++) {
				ids.add(submitter.submit(QUEUE, "group-" + group, new Item("group-" + group, sequence, 150)));
			}
		}
		await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200)).until(() -> {
			QueueStats stats = submitter.stats(QUEUE);
			return stats.queued() + stats.running() == 0;
		});
		this.cutting.set(false);

		int cuts = this.proxies.stream().mapToInt(FaultProxy::cuts).sum();
		List<String> lateFirstStarts = starts.entrySet().stream()
			.filter((entry) -> entry.getValue().get(0) != 1)
			.map((entry) -> entry.getKey() + " first started on attempt " + entry.getValue().get(0))
			.toList();
		logger.info("{} tasks, {} cuts, {} runs, {} overlaps, {} out of order, {} first started above attempt 1", ids.size(),
				cuts, probe.total.get(), probe.overlaps.get(), probe.outOfOrder.get(), lateFirstStarts.size());
		assertThat(cuts).as("connection cuts").isGreaterThanOrEqualTo(10);
		assertThat(lateFirstStarts).as("tasks taken and never run before a later attempt").isEmpty();
		assertThat(probe.notRunOnce(ids)).as("tasks that did not run exactly once").isZero();
		assertThat(probe.overlaps.get()).as("overlaps within a group").isZero();
		assertThat(probe.outOfOrder.get()).as("runs out of order within a group").isZero();
		assertThat(submitter.stats(QUEUE).dead()).as("dead letters").isZero();
		for (String id : ids) {
			SerialTask task = submitter.task(QUEUE, id).orElseThrow();
			assertThat(task.state()).as("task " + id).isEqualTo(SerialTask.State.DONE);
			assertThat(task.attempt()).as("attempts counted for " + id + ", which ran once").isEqualTo(1);
		}
		// nothing left but the done tasks' records, which expire with the deduplication window, and the
		// mark that a worker may be idle, which expires after an idle worker's longest wait
		assertThat(this.redis.keys()).as("keys left once drained")
			.allMatch((key) -> key.contains(":t:") || key.endsWith(":queued") || key.endsWith(":idle"));
		assertThat(this.redis.template().opsForValue().get(this.redis.prefix() + "{queue:" + QUEUE + "}:queued"))
			.isIn(null, "0");
	}

	private void cut(FaultProxy proxy, Random random) {
		while (this.cutting.get()) {
			try {
				Thread.sleep(500 + random.nextInt(1500));
			}
			catch (InterruptedException ex) {
				return;
			}
			if (this.cutting.get()) {
				proxy.cutAll();
			}
		}
	}

}
