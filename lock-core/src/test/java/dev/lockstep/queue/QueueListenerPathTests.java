package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
 * throws.
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
				Duration.ofMinutes(1)));
		queue.listen(QUEUE, 1, ListenerMethod.of(new Failing(), Failing.class.getDeclaredMethod("run", Item.class),
				SerialQueueTests.JSON), "Failing.run");

		String id = queue.submit(QUEUE, "g", new Item("g", 1, 0));

		await().atMost(WAIT).until(() -> !queue.deadLetters(QUEUE, 10).isEmpty());
		SerialTask dead = queue.deadLetters(QUEUE, 10).get(0);
		assertThat(dead.id()).isEqualTo(id);
		assertThat(dead.lastError()).isEqualTo(AssertionError.class.getName() + ": the listener's own error");
	}

	private RedisSerialQueue instance(String name, QueueSettings settings) {
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), SerialQueueTests.JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setInstanceId(name);
		queue.setDefaults(settings);
		queue.start();
		this.instances.add(queue);
		return queue;
	}

	static class Failing {

		void run(Item item) {
			throw new AssertionError("the listener's own error");
		}

	}

}
