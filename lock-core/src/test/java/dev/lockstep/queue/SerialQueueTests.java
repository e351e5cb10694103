package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockListener;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueueException;
import dev.lockstep.SerialTask;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Serial queues on a real Redis, with several {@link RedisSerialQueue}s in this JVM standing for
 * instances: order and exclusion per group, fairness across groups, retries and dead letters,
 * deduplication, leases that run out, and shutdown.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SerialQueueTests {

	private static final String QUEUE = "imports";

	private static final Duration WAIT = Duration.ofSeconds(60);

	static final JsonMapper JSON = JsonMapper.builder().build();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopInstances() {
		this.instances.forEach((instance) -> {
			instance.setShutdownTimeout(Duration.ZERO);
			instance.stop();
		});
		this.threads.shutdownNow();
	}

	@Test
	void tasksOfAGroupRunAloneAndInOrderAcrossInstancesWhileGroupsRunInParallel() throws Exception {
		GroupProbe probe = new GroupProbe();
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger mostInFlight = new AtomicInteger();
		TaskHandler handler = items((task, item) -> {
			mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
			try {
				probe.run(task.id(), item.group(), item.sequence(), TimeUnit.MILLISECONDS.toNanos(item.workMillis()));
			}
			finally {
				inFlight.decrementAndGet();
			}
		});
		instance("a", 4, handler, (queue) -> {
		});
		RedisSerialQueue b = instance("b", 4, handler, (queue) -> {
		});

		List<String> ids = submitGroups(b, 24, 12, 2);

		await().atMost(WAIT).until(() -> probe.total.get() >= ids.size() && b.stats(QUEUE).running() == 0);
		assertThat(probe.overlaps).hasValue(0);
		assertThat(probe.outOfOrder).hasValue(0);
		assertThat(probe.notRunOnce(ids)).isZero();
		assertThat(probe.total).hasValue(ids.size());
		assertThat(mostInFlight.get()).as("groups in parallel").isGreaterThan(1);
		assertThat(b.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(b.task(QUEUE, ids.get(0))).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.DONE);
		// what is left in Redis: the DONE records (expiring with the deduplication window), the count, and
		// the mark that a worker may be idle (expiring after an idle worker's longest wait)
		List<String> left = this.redis.keys();
		String base = this.redis.prefix() + "{queue:" + QUEUE + "}";
		assertThat(left).allMatch((key) -> key.startsWith(base + ":t:") || key.equals(base + ":queued")
				|| key.equals(base + ":idle"));
		assertThat(left).filteredOn((key) -> key.endsWith(":idle"))
			.allMatch((key) -> this.redis.template().getExpire(key, TimeUnit.MILLISECONDS) > 0);
		assertThat(left).filteredOn((key) -> key.contains(":t:"))
			.allMatch((key) -> this.redis.template().getExpire(key, TimeUnit.MILLISECONDS) > 0)
			.allMatch((key) -> "".equals(this.redis.template().opsForHash().get(key, "payload")), "the payload emptied");
	}

	/** The control for the test above: the same tasks on a plain thread pool, and the probe sees it. */
	@Test
	void theProbeSeesOverlapWhenTasksOfAGroupRunOnAPlainThreadPool() throws Exception {
		GroupProbe probe = new GroupProbe();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int group = 0; group < 24; group++) {
				for (int sequence = 0; sequence < 12; sequence++) {
					String g = "group-" + group;
					int s = sequence;
					runs.add(pool.submit(() -> probe.run(g + "/" + s, g, s, TimeUnit.MILLISECONDS.toNanos(2))));
				}
			}
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(probe.overlaps.get()).isPositive();
	}

	@Test
	void aHotGroupDoesNotHoldUpTheOtherGroups() throws Exception {
		AtomicInteger hotDone = new AtomicInteger();
		Map<String, Integer> hotDoneWhenColdRan = new ConcurrentHashMap<>();
		RedisSerialQueue queue = instance("a", 4, items((task, item) -> {
			Thread.sleep(item.workMillis());
			if (item.group().equals("hot")) {
				hotDone.incrementAndGet();
			}
			else {
				hotDoneWhenColdRan.put(item.group(), hotDone.get());
			}
		}), (q) -> {
		});
		for (int i = 0; i < 200; i++) {
			queue.submit(QUEUE, "hot", new Item("hot", i, 10));
		}
		for (int i = 0; i < 20; i++) {
			queue.submit(QUEUE, "cold-" + i, new Item("cold-" + i, 0, 10));
		}
		await().atMost(WAIT).until(() -> hotDoneWhenColdRan.size() == 20);
		// the hot group drains one task at a time (about 2s); the cold ones ran beside it, at once
		assertThat(Collections.max(hotDoneWhenColdRan.values())).isLessThan(100);
		await().atMost(WAIT).until(() -> hotDone.get() == 200);
	}

	@Test
	void aFailingTaskIsRetriedWithBackoffThenDeadItsGroupGoesOnAndARedriveRunsItNextInItsGroup() throws Exception {
		AtomicBoolean failing = new AtomicBoolean(true);
		List<String> runs = new CopyOnWriteArrayList<>();
		List<Long> attemptsAt = new CopyOnWriteArrayList<>();
		CountDownLatch blocker = new CountDownLatch(1);
		RedisSerialQueue queue = instance("a", 2, items((task, item) -> {
			runs.add(item.sequence() + "#" + task.attempt());
			if (item.sequence() == 0 && failing.get()) {
				attemptsAt.add(System.nanoTime());
				throw new IllegalStateException("import " + item.sequence() + " failed");
			}
			if (item.sequence() == 3) {
				blocker.await(60, TimeUnit.SECONDS);
			}
		}), (q) -> q.setDefaults(new QueueSettings(Duration.ofSeconds(5), 3, Duration.ofMillis(200), Duration.ofMinutes(1))));

		String first = queue.submit(QUEUE, "g", new Item("g", 0, 0));
		queue.submit(QUEUE, "g", new Item("g", 1, 0));
		queue.submit(QUEUE, "g", new Item("g", 2, 0));
		await().atMost(WAIT).until(() -> runs.size() == 5);
		assertThat(runs).containsExactly("0#1", "0#2", "0#3", "1#1", "2#1");
		// backoff 200ms, then doubled: 400ms
		assertThat(attemptsAt.get(1) - attemptsAt.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(180));
		assertThat(attemptsAt.get(2) - attemptsAt.get(1)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(380));
		SerialTask dead = queue.task(QUEUE, first).orElseThrow();
		assertThat(dead.state()).isEqualTo(SerialTask.State.DEAD);
		assertThat(dead.attempt()).isEqualTo(3);
		assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: import 0 failed");
		assertThat(queue.deadLetters(QUEUE, 10)).containsExactly(dead);
		assertThat(queue.stats(QUEUE).dead()).isEqualTo(1);

		// redriven while the group's task 3 runs and 4 waits: it runs after 3, before 4
		failing.set(false);
		queue.submit(QUEUE, "g", new Item("g", 3, 0));
		await().atMost(WAIT).until(() -> runs.contains("3#1"));
		queue.submit(QUEUE, "g", new Item("g", 4, 0));
		assertThat(queue.redrive(QUEUE, first)).isTrue();
		assertThat(queue.redrive(QUEUE, first)).as("no longer dead").isFalse();
		blocker.countDown();
		await().atMost(WAIT).until(() -> runs.size() == 8);
		assertThat(runs.subList(5, 8)).containsExactly("3#1", "0#1", "4#1");
		assertThat(queue.task(QUEUE, first)).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.DONE);
		assertThat(queue.deadLetters(QUEUE, 10)).isEmpty();
		assertThat(queue.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void aPayloadTheListenerCannotReadGoesToTheDeadLettersAtOnceAndItsGroupGoesOn() throws Exception {
		List<Integer> ran = new CopyOnWriteArrayList<>();
		RedisSerialQueue queue = instance("a", 1, items((task, item) -> ran.add(item.sequence())), (q) -> {
		});
		String unreadable = queue.submit(QUEUE, "g", List.of("not", "an", "item"));
		queue.submit(QUEUE, "g", new Item("g", 1, 0));
		await().atMost(WAIT).until(() -> ran.contains(1));
		SerialTask dead = queue.task(QUEUE, unreadable).orElseThrow();
		assertThat(dead.state()).isEqualTo(SerialTask.State.DEAD);
		assertThat(dead.attempt()).isEqualTo(1);
		assertThat(dead.lastError()).contains(UnreadablePayloadException.class.getName()).contains("cannot be read as");
	}

	@Test
	void aDiscardedDeadTaskIsGoneForGoodWhileItsDeduplicationIdStaysTakenAndOnlyADeadTaskIsDiscarded() throws Exception {
		List<Integer> ran = new CopyOnWriteArrayList<>();
		RedisSerialQueue queue = instance("a", 1, items((task, item) -> ran.add(item.sequence())), (q) -> {
		});
		String poison = queue.submit(QUEUE, "g", List.of("not", "an", "item"), "message-1");
		await().atMost(WAIT).until(() -> queue.task(QUEUE, poison).orElseThrow().state() == SerialTask.State.DEAD);
		RedisSerialQueue idle = instance("idle", 1, null, (q) -> {
		});
		// a queue nobody listens to keeps its task queued
		String queued = idle.submit("reports", "other", new Item("other", 0, 0));
		assertThat(idle.task("reports", queued).orElseThrow().state()).isEqualTo(SerialTask.State.QUEUED);
		assertThat(idle.discard("reports", queued)).as("a queued task is not discarded").isFalse();
		assertThat(idle.task("reports", queued).orElseThrow().state()).isEqualTo(SerialTask.State.QUEUED);
		String toRun = idle.submit(QUEUE, "other", new Item("other", 1, 0));

		assertThat(queue.discard(QUEUE, poison)).isTrue();
		assertThat(queue.task(QUEUE, poison)).isEmpty();
		assertThat(queue.deadLetters(QUEUE, 10)).isEmpty();
		assertThat(queue.stats(QUEUE).dead()).isZero();
		assertThat(this.redis.keys()).as("nothing of the discarded task is left in Redis but its deduplication id")
			.noneMatch((key) -> key.endsWith(":t:" + poison) || key.endsWith(":dead"))
			.anyMatch((key) -> key.endsWith(":d:message-1"));
		assertThat(queue.discard(QUEUE, poison)).as("discarded once").isFalse();
		assertThat(queue.submit(QUEUE, "g", new Item("g", 2, 0), "message-1")).as("the same message again, within the window")
			.isEqualTo(poison);
		assertThat(queue.task(QUEUE, poison)).isEmpty();
		await().atMost(WAIT).until(() -> ran.contains(1));
		assertThat(queue.discard(QUEUE, toRun)).as("a done task is not discarded").isFalse();
		assertThat(queue.task(QUEUE, toRun).orElseThrow().state()).isEqualTo(SerialTask.State.DONE);
		assertThat(ran).containsExactly(1);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> queue.discard(QUEUE, " "))
			.withMessageContaining("Task id");
	}

	/** An exception, or an error such as a metrics library of another version throws ({@code NoSuchMethodError}). */
	@ParameterizedTest
	@ValueSource(strings = { "exception", "error" })
	void aListenerThatThrowsCostsNoWorkerAndLeavesNoTaskRunning(String kind) throws Exception {
		List<Integer> ran = new CopyOnWriteArrayList<>();
		AtomicInteger calls = new AtomicInteger();
		LockListener throwing = new LockListener() {

			@Override
			public void taskStarted(String queue, Duration waited) {
				calls.incrementAndGet();
				breakDown(kind, "listener broken on start");
			}

			@Override
			public void taskEnded(String queue, String outcome, Duration ran) {
				calls.incrementAndGet();
				breakDown(kind, "listener broken on end");
			}

		};
		// one worker: were it lost to the listener, the second task would never run
		RedisSerialQueue queue = instance("a", 1, items((task, item) -> ran.add(item.sequence())),
				(q) -> q.setListener(throwing));
		for (int i = 0; i < 5; i++) {
			queue.submit(QUEUE, "g" + (i % 2), new Item("g" + (i % 2), i, 0));
		}
		await().atMost(WAIT).until(() -> ran.size() == 5 && queue.stats(QUEUE).equals(new QueueStats(0, 0, 0, 0)));
		assertThat(ran).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
		assertThat(calls).as("the listener was called, and threw, at each start and end").hasValue(10);
	}

	private static void breakDown(String kind, String message) {
		if (kind.equals("error")) {
			throw new NoSuchMethodError(message);
		}
		throw new IllegalStateException(message);
	}

	@Test
	void aTakeWhoseReplyIsLostGivesItsTaskBackWithoutCountingTheAttempt() throws Exception {
		// replies from Redis to the worker arrive after its command timeout: each take runs in Redis,
		// its worker never hears of it; with one attempt allowed, a task so taken and left to its lease
		// would go to the dead letters without ever running
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		LettuceConnectionFactory throughProxy = dev.lockstep.lock.RedisConnections.standalone(proxy.host(), proxy.port());
		List<Integer> ran = new CopyOnWriteArrayList<>();
		RedisSerialQueue submitter = instance("submitter", 1, null, (q) -> {
		});
		RedisSerialQueue worker = new RedisSerialQueue(throughProxy, JSON);
		try {
			worker.setKeyPrefix(this.redis.prefix());
			worker.setInstanceId("worker");
			worker.setCommandTimeout(Duration.ofMillis(300));
			worker.setDefaults(new QueueSettings(Duration.ofSeconds(2), 1, Duration.ofMillis(100), Duration.ofMinutes(1)));
			worker.listen(QUEUE, 1, items((task, item) -> ran.add(item.sequence())), "test handler worker");
			proxy.latency(Duration.ZERO, Duration.ofMillis(1500));
			worker.start();
			String id = submitter.submit(QUEUE, "g", new Item("g", 1, 0));
			// several takes time out meanwhile, each undone after it; then the replies come in time again
			Thread.sleep(4000);
			assertThat(ran).as("no take was heard of").isEmpty();
			proxy.latency(Duration.ZERO, Duration.ZERO);
			await().atMost(WAIT).until(() -> ran.size() == 1);
			await().atMost(WAIT).until(() -> submitter.task(QUEUE, id).orElseThrow().state() == SerialTask.State.DONE);
			assertThat(submitter.task(QUEUE, id).orElseThrow().attempt()).as("attempts counted").isEqualTo(1);
			assertThat(submitter.deadLetters(QUEUE, 10)).isEmpty();
		}
		finally {
			worker.stop();
			throughProxy.destroy();
			proxy.close();
		}
	}

	/**
	 * Issue 34: an attempt whose instance cannot renew its lease (its connection stalls) learns it
	 * from {@link SerialTask#isCurrent()} before another attempt of the task, or a later task of its
	 * group, begins elsewhere; and each later attempt or task carries a larger fencing token.
	 */
	@Test
	void anAttemptThatOutlivesItsLeaseIsNoLongerCurrentWhenAnotherBeginsAndLaterOnesHaveLargerTokens() throws Exception {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		LettuceConnectionFactory throughProxy = dev.lockstep.lock.RedisConnections.standalone(proxy.host(), proxy.port());
		Map<String, SerialTask> stalledAttempt = new ConcurrentHashMap<>();
		CountDownLatch stalledStarted = new CountDownLatch(1);
		CountDownLatch released = new CountDownLatch(1);
		AtomicBoolean currentAtStart = new AtomicBoolean();
		RedisSerialQueue stalling = new RedisSerialQueue(throughProxy, JSON);
		try {
			stalling.setKeyPrefix(this.redis.prefix());
			stalling.setInstanceId("stalling");
			stalling.setCommandTimeout(Duration.ofMillis(500));
			stalling.setDefaults(leaseOf(Duration.ofSeconds(2)));
			stalling.listen(QUEUE, 1, items((task, item) -> {
				stalledAttempt.put("it", task);
				currentAtStart.set(task.isCurrent());
				stalledStarted.countDown();
				released.await(60, TimeUnit.SECONDS);
			}), "test handler stalling");
			stalling.start();
			String first = stalling.submit(QUEUE, "g", new Item("g", 0, 0));
			for (int i = 1; i < 4; i++) {
				stalling.submit(QUEUE, "g", new Item("g", i, 0));
			}
			assertThat(stalledStarted.await(30, TimeUnit.SECONDS)).isTrue();
			SerialTask stalled = stalledAttempt.get("it");
			assertThat(currentAtStart).as("an attempt is current when it begins").isTrue();
			assertThat(stalled.fencingToken()).isPositive();
			proxy.stall();

			// another instance runs the task again once the lease ran out, then the group's later tasks
			List<String> seen = new CopyOnWriteArrayList<>();
			List<Long> tokens = new CopyOnWriteArrayList<>();
			List<SerialTask> others = new CopyOnWriteArrayList<>();
			RedisSerialQueue other = instance("other", 1, items((task, item) -> {
				seen.add(item.sequence() + "#" + task.attempt() + (stalled.isCurrent() ? " beside a current attempt" : ""));
				tokens.add(task.fencingToken());
				assertThat(task.isCurrent()).isTrue();
				others.add(task);
			}), (q) -> q.setDefaults(leaseOf(Duration.ofSeconds(2))));
			await().atMost(WAIT).until(() -> seen.size() == 4);
			assertThat(seen).containsExactly("0#2", "1#1", "2#1", "3#1");
			assertThat(stalled.isCurrent()).isFalse();
			assertThat(tokens.get(0)).as("the next attempt's token").isGreaterThan(stalled.fencingToken());
			assertThat(tokens).as("the group's later tasks' tokens").isSorted().doesNotHaveDuplicates();
			assertThat(others).as("an attempt that ended is no longer current").noneMatch(SerialTask::isCurrent);
			assertThat(other.task(QUEUE, first).orElseThrow().isCurrent()).as("a task read through a view").isFalse();
		}
		finally {
			released.countDown();
			proxy.heal();
			stalling.setShutdownTimeout(Duration.ZERO);
			stalling.stop();
			throughProxy.destroy();
			proxy.close();
		}
	}

	@Test
	void aSecondSubmitWithTheSameDeduplicationIdStoresNothingAndReturnsTheFirstId() {
		RedisSerialQueue queue = instance("a", 1, null, (q) -> {
		});
		String first = queue.submit(QUEUE, "g", new Item("g", 0, 0), "message-17");
		String second = queue.submit(QUEUE, "g", new Item("g", 0, 0), "message-17");
		String other = queue.submit(QUEUE, "g", new Item("g", 1, 0), "message-18");
		assertThat(second).isEqualTo(first);
		assertThat(other).isNotEqualTo(first);
		assertThat(queue.stats(QUEUE).queued()).isEqualTo(2);
	}

	@Test
	void aPayloadThatCannotBeWrittenFailsTheSubmitNamingTheQueueAndStoresNothing() {
		RedisSerialQueue queue = instance("a", 1, null, (q) -> {
		});
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> queue.submit(QUEUE, "g", new Unwritable()))
			.withMessageContaining("queue 'imports'")
			.withMessageContaining(Unwritable.class.getName());
		assertThat(this.redis.keys()).isEmpty();
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> queue.submit("a{b}", "g", "x"))
			.withMessageContaining("Queue name");
	}

	@Test
	void aTaskWhoseInstanceDiedRunsAgainAfterItsLeaseBeforeItsGroupsNextTask() throws Exception {
		RedisSerialQueue dead = instance("dead", 1, null, (q) -> q.setDefaults(leaseOf(Duration.ofSeconds(2))));
		String abandoned = dead.submit(QUEUE, "g", new Item("g", 0, 0));
		dead.submit(QUEUE, "g", new Item("g", 1, 0));
		// an instance takes the task and dies: nobody renews it
		QueueScripts scripts = new QueueScripts(new dev.lockstep.internal.redis.RedisScripts(this.redis.factory()));
		QueueScripts.Taken taken = scripts.take(QueueKeys.of(this.redis.prefix(), QUEUE), "gone:1", leaseOf(Duration.ofSeconds(2)), true)
			.get(10, TimeUnit.SECONDS);
		assertThat(taken.task().id()).isEqualTo(abandoned);
		long takenAt = System.nanoTime();
		assertThat(dead.task(QUEUE, abandoned).orElseThrow().state()).isEqualTo(SerialTask.State.RUNNING);
		assertThat(dead.stats(QUEUE)).isEqualTo(new QueueStats(1, 1, 0, 0));
		assertThat(dead.busiestGroups(QUEUE, 10)).containsExactly(new QueueGroup("g", 1, true));
		// once the lease ran out, every view shows the task queued until a worker takes it back
		await().atMost(WAIT).until(() -> dead.task(QUEUE, abandoned).orElseThrow().state() == SerialTask.State.QUEUED);
		assertThat(System.nanoTime() - takenAt).as("not before its lease ran out").isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1900));
		assertThat(dead.stats(QUEUE)).isEqualTo(new QueueStats(2, 0, 0, 1));
		assertThat(dead.busiestGroups(QUEUE, 10)).containsExactly(new QueueGroup("g", 2, false));

		List<String> runs = new CopyOnWriteArrayList<>();
		List<Long> runAt = new CopyOnWriteArrayList<>();
		instance("b", 2, items((task, item) -> {
			runs.add(item.sequence() + "#" + task.attempt());
			runAt.add(System.nanoTime());
		}), (q) -> q.setDefaults(leaseOf(Duration.ofSeconds(2))));
		await().atMost(WAIT).until(() -> runs.size() == 2);
		assertThat(runs).containsExactly("0#2", "1#1");
		assertThat(runAt.get(0) - takenAt).as("ran again after the lease, and soon after")
			.isBetween(TimeUnit.MILLISECONDS.toNanos(1900), TimeUnit.SECONDS.toNanos(10));
		SerialTask done = dead.task(QUEUE, abandoned).orElseThrow();
		assertThat(done.attempt()).isEqualTo(2);
		assertThat(done.lastError()).contains("lease ran out").contains("gone:1");
	}

	@Test
	void aStoppingInstanceFinishesItsRunningTaskAndLeavesTheQueuedOnesToTheOthers() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		List<String> ranOnA = new CopyOnWriteArrayList<>();
		RedisSerialQueue a = instance("a", 1, items((task, item) -> {
			ranOnA.add(item.group() + "/" + item.sequence());
			started.countDown();
			Thread.sleep(item.workMillis());
		}), (q) -> q.setShutdownTimeout(Duration.ofSeconds(10)));
		a.submit(QUEUE, "g", new Item("g", 0, 500));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		for (int i = 1; i <= 5; i++) {
			a.submit(QUEUE, "g", new Item("g", i, 0));
			a.submit(QUEUE, "h" + i, new Item("h" + i, 0, 0));
		}
		a.stop();
		assertThat(ranOnA).containsExactly("g/0");
		assertThat(a.stats(QUEUE)).isEqualTo(new QueueStats(10, 0, 0, 6));

		List<String> ranOnB = new CopyOnWriteArrayList<>();
		instance("b", 2, items((task, item) -> ranOnB.add(item.group() + "/" + item.sequence())), (q) -> {
		});
		await().atMost(WAIT).until(() -> ranOnB.size() == 10);
		assertThat(ranOnB).filteredOn((run) -> run.startsWith("g/")).containsExactly("g/1", "g/2", "g/3", "g/4", "g/5");
		assertThat(ranOnA).containsExactly("g/0");
	}

	/**
	 * Also when the listener turns the interrupt into an exception of its own and clears the
	 * thread's flag, as many libraries do: the stop interrupted it, so the task goes back rather
	 * than counting as failed (on its last attempt, to the dead letters).
	 */
	@ParameterizedTest(name = "interrupt wrapped by the listener: {0}")
	@ValueSource(booleans = { false, true })
	void aTaskStillRunningAtTheShutdownTimeoutIsGivenBackAndRunsElsewhereBeforeItsGroupsNext(boolean wrapped) throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		RedisSerialQueue a = instance("a", 1, items((task, item) -> {
			started.countDown();
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				if (wrapped) {
					throw new IllegalStateException("the import was interrupted", ex);
				}
				throw ex;
			}
		}), (q) -> q.setShutdownTimeout(Duration.ofMillis(300)));
		String slow = a.submit(QUEUE, "g", new Item("g", 0, 0));
		a.submit(QUEUE, "g", new Item("g", 1, 0));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		a.stop();
		SerialTask givenBack = a.task(QUEUE, slow).orElseThrow();
		assertThat(givenBack.state()).isEqualTo(SerialTask.State.QUEUED);
		assertThat(givenBack.lastError()).contains("stopped while it ran");

		List<String> runs = new CopyOnWriteArrayList<>();
		instance("b", 2, items((task, item) -> runs.add(item.sequence() + "#" + task.attempt())), (q) -> {
		});
		await().atMost(WAIT).until(() -> runs.size() == 2);
		assertThat(runs).containsExactly("0#2", "1#1");
	}

	/**
	 * Its attempt counts, as a crash's does: a task that never ends within the shutdown timeout does
	 * not move from instance to instance with every deploy, and its group goes on.
	 */
	@Test
	void aTaskStillRunningAtTheShutdownTimeoutOnItsLastAttemptGoesToTheDeadLetters() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		RedisSerialQueue a = instance("a", 1, items((task, item) -> {
			started.countDown();
			Thread.sleep(60_000);
		}), (q) -> {
			q.setShutdownTimeout(Duration.ofMillis(300));
			q.setDefaults(new QueueSettings(Duration.ofSeconds(5), 1, Duration.ofMillis(100), Duration.ofMinutes(1)));
		});
		String stuck = a.submit(QUEUE, "g", new Item("g", 0, 0));
		a.submit(QUEUE, "g", new Item("g", 1, 0));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		a.stop();
		SerialTask dead = a.task(QUEUE, stuck).orElseThrow();
		assertThat(dead.state()).isEqualTo(SerialTask.State.DEAD);
		assertThat(dead.lastError()).contains("stopped while it ran").contains("on its last attempt (1 of 1)");
		assertThat(a.deadLetters(QUEUE, 10)).extracting(SerialTask::id).containsExactly(stuck);

		List<String> runs = new CopyOnWriteArrayList<>();
		instance("b", 2, items((task, item) -> runs.add(item.sequence() + "#" + task.attempt())),
				(q) -> q.setDefaults(new QueueSettings(Duration.ofSeconds(5), 1, Duration.ofMillis(100), Duration.ofMinutes(1))));
		await().atMost(WAIT).until(() -> runs.size() == 1 && a.stats(QUEUE).queued() == 0);
		assertThat(runs).as("the group goes on; the dead task does not run again").containsExactly("1#1");
	}

	/**
	 * A worker thread whose listener ignored the interrupt outlives the stop; when its listener
	 * returns after the queue started again, that thread ends rather than working beside the new
	 * run's: never more than {@code concurrency} tasks run at once.
	 */
	@Test
	void aQueueStartedAgainAfterAStopWhoseStuckListenerOutlivedItRunsAtMostConcurrencyTasksAtOnce() throws Exception {
		CountDownLatch stuckStarted = new CountDownLatch(1);
		CountDownLatch unstick = new CountDownLatch(1);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		Set<Thread> threadsAfterRestart = ConcurrentHashMap.newKeySet();
		List<String> runs = new CopyOnWriteArrayList<>();
		RedisSerialQueue a = instance("a", 1, items((task, item) -> {
			if (item.group().equals("stuck") && task.attempt() == 1) {
				stuckStarted.countDown();
				// a listener that swallows the interrupt and goes on waiting
				while (true) {
					try {
						if (unstick.await(60, TimeUnit.SECONDS)) {
							return;
						}
					}
					catch (InterruptedException ex) {
						// ignored, as some listeners do
					}
				}
			}
			mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
			threadsAfterRestart.add(Thread.currentThread());
			try {
				Thread.sleep(30);
			}
			finally {
				running.decrementAndGet();
				runs.add(item.group());
			}
		}), (q) -> q.setShutdownTimeout(Duration.ofMillis(300)));
		a.submit(QUEUE, "stuck", new Item("stuck", 0, 0));
		assertThat(stuckStarted.await(30, TimeUnit.SECONDS)).isTrue();
		a.stop();
		a.start();
		for (int i = 0; i < 10; i++) {
			a.submit(QUEUE, "g" + i, new Item("g" + i, 0, 0));
		}
		unstick.countDown();
		await().atMost(WAIT).until(() -> runs.size() == 11);
		assertThat(mostAtOnce).as("tasks running at once with concurrency 1").hasValue(1);
		assertThat(threadsAfterRestart).as("worker threads that ran tasks after the restart").hasSize(1);
	}

	@Test
	void submittingWhileRedisIsUnreachableFailsAndNamesTheQueue() {
		RedisSerialQueue queue = new RedisSerialQueue(dev.lockstep.lock.RedisConnections.standalone("127.0.0.1", 1), JSON);
		queue.setCommandTimeout(Duration.ofSeconds(2));
		assertThatExceptionOfType(SerialQueueException.class)
			.isThrownBy(() -> queue.submit(QUEUE, "g", new Item("g", 0, 0)))
			.withMessageContaining("queue 'imports'")
			.withMessageContaining("submit with a deduplication id to send it again safely");
	}

	/** Submits {@code groups} groups of {@code tasks} tasks from {@code submitters} threads, each group from one. */
	private List<String> submitGroups(RedisSerialQueue queue, int groups, int tasks, int submitters) throws Exception {
		List<Future<List<String>>> submitted = new ArrayList<>();
		for (int s = 0; s < submitters; s++) {
			int submitter = s;
			submitted.add(this.threads.submit(() -> {
				List<String> ids = new ArrayList<>();
				for (int sequence = 0; sequence < tasks; sequence++) {
					for (int group = submitter; group < groups; group += submitters) {
						ids.add(queue.submit(QUEUE, "group-" + group, new Item("group-" + group, sequence, 2)));
					}
				}
				return ids;
			}));
		}
		List<String> ids = new ArrayList<>();
		for (Future<List<String>> part : submitted) {
			ids.addAll(part.get(60, TimeUnit.SECONDS));
		}
		return ids;
	}

	private static QueueSettings leaseOf(Duration lease) {
		return new QueueSettings(lease, 3, Duration.ofMillis(100), Duration.ofMinutes(1));
	}

	/** A started instance with its own id; {@code handler} null: it only submits and reads. */
	private RedisSerialQueue instance(String name, int concurrency, TaskHandler handler, Consumer<RedisSerialQueue> settings) {
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setInstanceId(name);
		queue.setShutdownTimeout(Duration.ofSeconds(5));
		settings.accept(queue);
		if (handler != null) {
			queue.listen(QUEUE, concurrency, handler, "test handler " + name);
		}
		queue.start();
		this.instances.add(queue);
		return queue;
	}

	/** A handler of {@link Item} payloads; other payloads cannot be read. */
	static TaskHandler items(ItemHandler handler) {
		return (task, json) -> {
			Item item;
			try {
				item = JSON.readValue(json, Item.class);
			}
			catch (tools.jackson.core.JacksonException ex) {
				throw new UnreadablePayloadException("its payload cannot be read as an Item: " + ex.getOriginalMessage(), ex);
			}
			handler.handle(task, item);
		};
	}

	@FunctionalInterface
	interface ItemHandler {

		void handle(SerialTask task, Item item) throws Exception;

	}

	/** Its one property cannot be read, so Jackson cannot write it. */
	static final class Unwritable {

		public String getValue() {
			throw new IllegalStateException("no value");
		}

	}

}
