package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.SerialTask;
import dev.lockstep.lock.RedisFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue's listener path on a real Redis: what a dead task's error says when a listener method
 * throws, and a task given back at the shutdown timeout while its listener still runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueListenerPathTests {

	private static final String QUEUE = "listener-path";

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	@AfterEach
	void stopInstances() {
		this.instances.forEach((instance) -> {
			instance.setShutdownTimeout(Duration.ZERO);
			instance.stop();
		});
	}

	/** A listener method that throws an Error: the dead task names that error, not the reflective call's wrapper. */
	@Test
	void aDeadTaskNamesTheErrorItsListenerMethodThrew() throws Exception {
		RedisSerialQueue queue = instance("a", new QueueSettings(Duration.ofSeconds(5), 1, Duration.ZERO,
				Duration.ofMinutes(1)), (created) -> created.listen(QUEUE, 1, ListenerMethod.of(new Failing(),
						Failing.class.getDeclaredMethod("run", Item.class), SerialQueueTests.JSON), "Failing.run"));

		// the idle worker is woken by the submit, or looks on its own within a lease (5 s)
		String id = queue.submit(QUEUE, "g", new Item("g", 1, 0));

		await().atMost(WAIT).until(() -> !queue.deadLetters(QUEUE, 10).isEmpty());
		SerialTask dead = queue.deadLetters(QUEUE, 10).get(0);
		assertThat(dead.id()).isEqualTo(id);
		assertThat(dead.lastError()).isEqualTo(AssertionError.class.getName() + ": the listener's own error");
	}

	/** A listener method declared on a generic superclass reads the payload as the subclass's type argument. */
	@Test
	void aListenerMethodOfAGenericSuperclassReadsThePayloadAsTheBeansTypeArgument() throws Exception {
		ItemListener bean = new ItemListener();
		RedisSerialQueue reader = instance("reader", QueueSettings.DEFAULTS, (created) -> {
		});
		reader.submit(QUEUE, "g", new Item("g", 7, 0));
		instance("a", QueueSettings.DEFAULTS, (created) -> created.listen(QUEUE, 1, ListenerMethod.of(bean,
				GenericListener.class.getDeclaredMethod("run", Object.class), SerialQueueTests.JSON), "ItemListener.run"));

		await().atMost(WAIT).until(() -> bean.received.get() != null);
		assertThat(bean.received.get()).isEqualTo(new Item("g", 7, 0));
	}

	/**
	 * A listener that ignores the interrupt at the shutdown timeout: its task is given back and may
	 * start elsewhere at once, so the stuck attempt must no longer be current.
	 */
	@Test
	void aTaskGivenBackAtTheShutdownTimeoutIsNoLongerCurrentForItsStuckListener() throws Exception {
		AtomicReference<SerialTask> running = new AtomicReference<>();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch letGo = new CountDownLatch(1);
		TaskHandler stuck = (task, json) -> {
			running.set(task);
			started.countDown();
			long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (System.nanoTime() - giveUp < 0) {
				try {
					if (letGo.await(100, TimeUnit.MILLISECONDS)) {
						return;
					}
				}
				catch (InterruptedException ex) {
					// ignores the interrupt, as a stuck call would
				}
			}
		};
		// stored before the instance starts, so that its first take starts it (no wake-up to wait for)
		RedisSerialQueue reader = instance("reader", QueueSettings.DEFAULTS, (created) -> {
		});
		String id = reader.submit(QUEUE, "g", new Item("g", 1, 0));
		RedisSerialQueue a = instance("a", new QueueSettings(Duration.ofSeconds(6), 3, Duration.ZERO,
				Duration.ofMinutes(1)), (created) -> {
					created.setShutdownTimeout(Duration.ofMillis(200));
					created.setCommandTimeout(Duration.ofSeconds(1));
					created.listen(QUEUE, 1, stuck, "stuck handler");
				});
		try {
			assertThat(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			assertThat(running.get().isCurrent()).isTrue();

			a.stop();

			assertThat(reader.task(QUEUE, id)).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.QUEUED);
			assertThat(running.get().isCurrent()).as("the stuck attempt's isCurrent() once its task was given back")
				.isFalse();
		}
		finally {
			letGo.countDown();
		}
	}

	private RedisSerialQueue instance(String name, QueueSettings settings, Setup setup) throws Exception {
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setInstanceId(name);
		queue.setDefaults(settings);
		setup.accept(queue);
		queue.start();
		this.instances.add(queue);
		return queue;
	}

	interface Setup {

		void accept(RedisSerialQueue queue) throws Exception;

	}

	abstract static class GenericListener<T> {

		final AtomicReference<Object> received = new AtomicReference<>();

		void run(T payload) {
			this.received.set(payload);
		}

	}

	static class ItemListener extends GenericListener<Item> {

	}

	static class Failing {

		void run(Item item) {
			throw new AssertionError("the listener's own error");
		}

	}

}
