package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Serial queues across real worker JVMs: order and exclusion, and a worker killed with SIGKILL mid-task. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class QueueProcessTests {

	private static final String QUEUE = "imports";

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<JavaProcess> processes = new ArrayList<>();

	private RedisSerialQueue local;

	@AfterEach
	void stop() {
		this.processes.forEach(JavaProcess::kill);
		if (this.local != null) {
			this.local.setShutdownTimeout(Duration.ZERO);
			this.local.stop();
		}
	}

	@Test
	void tasksSubmittedByTwoProcessesRunOnBothAloneAndInOrderPerGroupAndEachOnce() {
		int groups = 16;
		int tasks = 10;
		this.processes.add(worker("a", 4, 30_000, groups, tasks, 0, 2));
		this.processes.add(worker("b", 4, 30_000, groups, tasks, 1, 2));
		RedisProbe probe = new RedisProbe(this.redis.template(), this.redis.prefix());
		await().atMost(Duration.ofSeconds(120)).until(() -> probe.runs().size() >= groups * tasks);
		List<String> runs = probe.runs();
		assertThat(probe.overlaps()).isZero();
		assertThat(probe.disorder()).isZero();
		assertThat(runs).hasSize(groups * tasks);
		assertThat(new HashSet<>(runs.stream().map((run) -> run.substring(0, run.indexOf('@'))).toList()))
			.as("each task ran once").hasSize(groups * tasks);
		assertThat(runs).anyMatch((run) -> run.endsWith("@a")).anyMatch((run) -> run.endsWith("@b"));
	}

	/** The control: the probe run from several threads on one group without the queue counts overlaps. */
	@Test
	void theRedisProbeSeesOverlapWithoutTheQueue() throws Exception {
		RedisProbe probe = new RedisProbe(this.redis.template(), this.redis.prefix());
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				int sequence = i;
				runs.add(threads.submit(() -> probe.run("t" + sequence, "x", "g", sequence, 5)));
			}
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(probe.overlaps()).isPositive();
	}

	@Test
	void aTaskWhoseWorkerIsKilledRunsAgainOnAnotherInstanceBeforeItsGroupsNextTask() throws Exception {
		long lease = 2000;
		JavaProcess doomed = worker("doomed", 1, lease, 0, 0, 0, 1);
		this.processes.add(doomed);
		doomed.awaitLine("SUBMITTED", Duration.ofSeconds(60));
		this.local = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		this.local.setKeyPrefix(this.redis.prefix());
		String slow = this.local.submit(QUEUE, "g", new Item("g", 0, 60_000));
		this.local.submit(QUEUE, "g", new Item("g", 1, 0));
		doomed.awaitLine("STARTED " + slow, Duration.ofSeconds(60));
		doomed.kill();
		long killedAt = System.nanoTime();

		List<String> runs = new CopyOnWriteArrayList<>();
		List<Long> at = new CopyOnWriteArrayList<>();
		this.local.setInstanceId("survivor");
		this.local.setDefaults(new QueueSettings(Duration.ofMillis(lease), 3, Duration.ofMillis(100), Duration.ofMinutes(10)));
		this.local.listen(QUEUE, 2, SerialQueueTests.items((task, item) -> {
			runs.add(item.sequence() + "#" + task.attempt());
			at.add(System.nanoTime());
		}), "survivor");
		this.local.start();
		await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == 2);
		assertThat(runs).containsExactly("0#2", "1#1");
		assertThat(at.get(0) - killedAt).as("within the lease and a few seconds").isLessThan(TimeUnit.MILLISECONDS.toNanos(lease + 5000));
		assertThat(this.local.task(QUEUE, slow).orElseThrow().lastError()).contains("doomed");
	}

	/**
	 * Issue 24: an instance killed with tasks running and started again under the same instance id
	 * gives those tasks back at once (their attempts will not end), rather than run its workers'
	 * worth of other tasks beside them until their leases run out.
	 */
	@Test
	void anInstanceStartedAgainAfterAnUncleanStopGivesBackWhatItsEarlierRunHeld() throws Exception {
		long lease = 60_000;
		JavaProcess first = worker("same", 2, lease, 0, 0, 0, 1);
		this.processes.add(first);
		first.awaitLine("SUBMITTED", Duration.ofSeconds(60));
		this.local = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		this.local.setKeyPrefix(this.redis.prefix());
		for (int group = 0; group < 4; group++) {
			this.local.submit(QUEUE, "g" + group, new Item("g" + group, 0, 600_000));
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> started(first).size() == 2);
		List<String> heldByFirst = started(first).stream().map((line) -> line.split(" ")[1]).toList();
		first.kill();

		JavaProcess second = worker("same", 2, lease, 0, 0, 0, 1);
		this.processes.add(second);
		await().atMost(Duration.ofSeconds(60)).until(() -> started(second).size() == 2);
		assertThat(started(second)).as("the second run starts what the first held, again, well within their leases")
			.allMatch((line) -> heldByFirst.contains(line.split(" ")[1]) && line.endsWith(" 2"));
		for (String id : heldByFirst) {
			assertThat(this.local.task(QUEUE, id).orElseThrow().lastError()).contains("started again");
		}
		for (int i = 0; i < 10; i++) {
			assertThat(this.local.stats(QUEUE).running()).as("tasks running under instance id 'same'").isEqualTo(2);
			Thread.sleep(100);
		}
	}

	private static List<String> started(JavaProcess worker) {
		return worker.lines().stream().filter((line) -> line.startsWith("STARTED ")).toList();
	}

	private JavaProcess worker(String instance, int concurrency, long leaseMillis, int groups, int tasks, int offset, int step) {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		return JavaProcess.start(instance, QueueWorkerProcess.class, QueueWorkerProcess.JVM_OPTIONS, endpoint.host(),
				Integer.toString(endpoint.port()), this.redis.prefix(), QUEUE, instance, Integer.toString(concurrency),
				Long.toString(leaseMillis), Integer.toString(groups), Integer.toString(tasks), Integer.toString(offset),
				Integer.toString(step));
	}

}
