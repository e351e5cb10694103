package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.QueueStats;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static dev.lockstep.queue.SerialQueueTests.JSON;
import static dev.lockstep.queue.SerialQueueTests.items;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener added to an instance that runs already hears the wake-up of the first task submitted
 * after its workers went idle, and later ones, however its queue's channel came to be subscribed:
 * beside a queue subscribed already, as the first queue of an instance started without listeners
 * (the subscription then starts on a thread of its own, after the workers), while that first
 * subscription is under way, after the subscription's connection was cut while a wake-up was
 * published, and when the listener was added while Redis was cut off (its SUBSCRIBE failed). The lease (60 s) and the idle look (30 s) are far longer than the 2 s a task is given
 * to start: a wake-up nobody heard shows as a task not started in time. Submits and the probes of
 * the idle mark go straight to Redis; the instance under test reaches it through a proxy whose
 * replies come late, which widens the window between a worker's first take and the confirmed
 * SUBSCRIBE of its channel.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueueLateListenerTests {

	/** Far less than an idle worker's own look ({@link IdleWorkers#IDLE_LOOK}, 30 s). */
	private static final Duration STARTS_WITHIN = Duration.ofSeconds(2);

	private static final QueueSettings LONG_LEASE = new QueueSettings(Duration.ofSeconds(60), 3, Duration.ofSeconds(1),
			Duration.ofMinutes(1));

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	/** The queue of each task started, in order. */
	private final BlockingQueue<String> started = new LinkedBlockingQueue<>();

	/** Submits straight to Redis; listens to nothing. */
	private RedisSerialQueue submitter;

	@BeforeEach
	void startSubmitter() {
		this.submitter = instance("submitter", this.redis.factory());
		this.submitter.start();
	}

	@AfterEach
	void stopInstances() {
		this.instances.forEach((instance) -> {
			instance.setShutdownTimeout(Duration.ZERO);
			instance.stop();
		});
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.proxies.forEach(FaultProxy::close);
	}

	/**
	 * The subscription is confirmed already: adding a channel then returns once Redis confirmed its
	 * SUBSCRIBE (the container waits for it), before the workers start.
	 */
	@Test
	void aListenerAddedBesideARunningQueueHearsTheWakeUpOfItsFirstTask() throws Exception {
		RedisSerialQueue running = instance("running", throughProxy(Duration.ofMillis(20)));
		running.listen("first", 1, recording("first"), "test handler first");
		running.start();
		for (int i = 0; i < 40; i++) {
			String queue = "late-" + i;
			running.listen(queue, 1, recording(queue), "test handler " + queue);
			submitOnceIdle(queue, i);
			assertStarted(queue, "the first task of listener " + i + ", added to the running instance");
		}
	}

	@Test
	void theFirstListenerOfAnInstanceStartedWithoutOneHearsTheWakeUpOfItsFirstTask() throws Exception {
		for (int i = 0; i < 3; i++) {
			String queue = "first-" + i;
			RedisSerialQueue instance = instance("instance-" + i, throughProxy(Duration.ofMillis(50)));
			instance.start();
			instance.listen(queue, 1, recording(queue), "test handler " + queue);
			submitOnceIdle(queue, 0);
			assertStarted(queue, "the first task of the first listener of instance " + i);
			submitOnceIdle(queue, 1);
			assertStarted(queue, "the second task of the first listener of instance " + i);
			stop(instance);
		}
	}

	@Test
	void aListenerAddedWhileTheFirstSubscriptionIsUnderWayHearsItsWakeUps() throws Exception {
		for (int i = 0; i < 2; i++) {
			String first = "first-" + i;
			String second = "second-" + i;
			RedisSerialQueue instance = instance("instance-" + i, throughProxy(Duration.ofMillis(100)));
			instance.start();
			instance.listen(first, 1, recording(first), "test handler " + first);
			// the first queue's worker took nothing; the subscription's SUBSCRIBE, on a new connection
			// whose every reply comes 100 ms late, is still under way
			awaitIdleMark(first);
			instance.listen(second, 1, recording(second), "test handler " + second);
			for (int task = 0; task < 2; task++) {
				submitOnceIdle(second, task);
				assertStarted(second, "task " + task + " of the queue listened to while the subscription of instance "
						+ i + " was under way");
			}
			submitOnceIdle(first, 0);
			assertStarted(first, "the first task of the first queue of instance " + i);
			stop(instance);
		}
	}

	@Test
	void aWakeUpPublishedWhileTheSubscriptionIsCutIsMadeUpForOnceItIsBack() throws Exception {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.proxies.add(proxy);
		RedisSerialQueue instance = instance("cut", factory(proxy));
		instance.listen("cut", 2, recording("cut"), "test handler cut");
		instance.start();
		for (int round = 0; round < 3; round++) {
			awaitIdleMark("cut");
			// the worker waits idle; every connection drops and none is let back in while the wake-up is published
			proxy.refuseNew();
			proxy.cutAll();
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 0);
			this.submitter.submit("cut", "g" + round, new Item("g" + round, round, 0));
			Thread.sleep(300);
			assertThat(this.started).as("tasks started while the instance was cut off").isEmpty();
			proxy.heal();
			String queue = this.started.poll(10, TimeUnit.SECONDS);
			assertThat(queue).as("the task submitted while the subscription was cut, in round %d, 10 s after", round)
				.isEqualTo("cut");
		}
	}

	/**
	 * A listener added while the instance's every connection is cut and refused: adding it neither
	 * fails nor leaves the queue half-registered, and its tasks run once Redis is back.
	 */
	@Test
	void aListenerAddedWhileRedisIsCutOffRunsItsTasksOnceItIsBack() throws Exception {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.proxies.add(proxy);
		RedisSerialQueue instance = instance("cut-off", factory(proxy));
		instance.listen("before", 1, recording("before"), "test handler before");
		instance.start();
		awaitIdleMark("before");
		proxy.refuseNew();
		proxy.cutAll();
		await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 0);
		instance.listen("added", 1, recording("added"), "test handler added");
		assertThat(instance.listenedQueues()).containsExactly("before", "added");
		proxy.heal();
		for (int task = 0; task < 2; task++) {
			submitOnceIdle("added", task);
			String queue = this.started.poll(10, TimeUnit.SECONDS);
			assertThat(queue).as("task %d of the queue listened to while Redis was cut off, 10 s after", task)
				.isEqualTo("added");
		}
	}

	/** Waits until {@code queue}'s workers took nothing and went idle; then submits a task of a new group. */
	private void submitOnceIdle(String queue, int sequence) {
		awaitIdleMark(queue);
		this.submitter.submit(queue, "g" + sequence, new Item("g" + sequence, sequence, 0));
	}

	/**
	 * Waits until a take of {@code queue} found nothing and marked that its worker may wait idle,
	 * and no task of it runs or waits (the finish of the last one took nothing in the same step).
	 */
	private void awaitIdleMark(String queue) {
		String idle = QueueKeys.of(this.redis.prefix(), queue).base() + ":idle";
		await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10))
			.until(() -> Boolean.TRUE.equals(this.redis.template().hasKey(idle))
					&& this.submitter.stats(queue).equals(new QueueStats(0, 0, 0, 0)));
	}

	private void assertStarted(String queue, String what) throws InterruptedException {
		String startedQueue = this.started.poll(STARTS_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(startedQueue).as("%s, %s after it was submitted", what, STARTS_WITHIN).isEqualTo(queue);
	}

	private TaskHandler recording(String queue) {
		return items((task, item) -> this.started.add(queue));
	}

	/** A connection factory through a new proxy whose replies come {@code latency} late. */
	private RedisConnectionFactory throughProxy(Duration latency) {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.proxies.add(proxy);
		proxy.latency(Duration.ZERO, latency);
		return factory(proxy);
	}

	private RedisConnectionFactory factory(FaultProxy proxy) {
		LettuceConnectionFactory factory = RedisConnections.standalone(proxy.host(), proxy.port());
		this.factories.add(factory);
		return factory;
	}

	private RedisSerialQueue instance(String name, RedisConnectionFactory connectionFactory) {
		RedisSerialQueue queue = new RedisSerialQueue(connectionFactory, JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setInstanceId(name);
		queue.setDefaults(LONG_LEASE);
		this.instances.add(queue);
		return queue;
	}

	private void stop(RedisSerialQueue instance) {
		instance.setShutdownTimeout(Duration.ZERO);
		instance.stop();
		this.instances.remove(instance);
	}

}
