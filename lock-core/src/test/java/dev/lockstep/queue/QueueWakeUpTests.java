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
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;

import static dev.lockstep.queue.SerialQueueTests.JSON;
import static dev.lockstep.queue.SerialQueueTests.items;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where a wake-up goes: to the instance whose worker went idle last, and to the others only if
 * that instance's woken take does not answer it in time (it stalled, died, or never listened);
 * how many a resumed queue sends; and that every instance learns when a failure's retry and
 * a lease that runs out fall due.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueWakeUpTests {

	private static final String QUEUE = "wake-ups";

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	/** {@code <instance>:<sequence>} of each task run, in the order they started. */
	private final List<String> runs = new CopyOnWriteArrayList<>();

	@AfterEach
	void stopInstances() {
		this.instances.forEach((instance) -> {
			instance.setShutdownTimeout(Duration.ZERO);
			instance.stop();
		});
	}

	@Test
	void theInstanceWhoseWorkerWentIdleLastTakesEachWakeUpAndTheOtherLooksForNone() throws Exception {
		// the other instance would wake only after 10s: every task below it runs was woken for it
		RedisSerialQueue first = worker("first", Duration.ofSeconds(10));
		worker("second", Duration.ofSeconds(10));
		awaitIdleMark();
		List<String> heard = new ArrayList<>();
		try (ChannelMessages channel = new ChannelMessages(this.redis.endpoint(), QueueKeys.of(this.redis.prefix(), QUEUE).channel())) {
			for (int i = 0; i < 20; i++) {
				String named = idleMark();
				int before = this.runs.size();
				first.submit(QUEUE, "g" + i, new Item("g" + i, i, 0));
				await().atMost(Duration.ofSeconds(5)).until(() -> this.runs.size() > before);
				String ranOn = this.runs.get(before).split(":")[0];
				assertThat(ranOn).as("task %d, the idle mark naming %s", i, named).isEqualTo(named);
				// the worker's finish took nothing and marked its instance idle again
				await().atMost(Duration.ofSeconds(5)).until(() -> ranOn.equals(idleMark()));
			}
			heard.addAll(channel.since());
		}
		String named = this.runs.get(0).split(":")[0];
		String other = named.equals("first") ? "second" : "first";
		assertThat(heard).as("messages on the queue's channel").contains("w:" + named, "t:" + named)
			.doesNotContain("t:" + other, "n:" + other);
	}

	@Test
	void aWakeUpForAnInstanceThatNoLongerListensWakesAnotherAfterTheHedgeDelay() throws Exception {
		worker("alive", IdleWorkers.HEDGE_DELAY);
		// the worker that went idle last was on an instance that is gone without a word
		submitWithIdleMark("gone");
		// far sooner than an idle worker's own look (IdleWorkers.IDLE_LOOK, 30s)
		await().atMost(Duration.ofSeconds(3)).until(() -> this.runs.size() == 1);
		assertThat(this.runs).containsExactly("alive:0");
	}

	@Test
	void controlWithoutTheHedgeAWakeUpForAnotherInstanceWakesNobodyHere() throws Exception {
		worker("alive", Duration.ofSeconds(30));
		submitWithIdleMark("gone");
		Thread.sleep(3_000);
		assertThat(this.runs).as("runs while the wake-up waits for the instance it named").isEmpty();
	}

	@Test
	void anIdleMarkOfAnEarlierVersionWakesEveryInstanceAtOnce() throws Exception {
		worker("alive", Duration.ofSeconds(30));
		submitWithIdleMark("1");
		await().atMost(Duration.ofSeconds(3)).until(() -> this.runs.size() == 1);
	}

	@Test
	void aRetryLeftByAnInstanceThatThenStopsStartsElsewhereWhenItFallsDue() throws Exception {
		// the first attempt fails; its retry falls due 2s later, when only the other instance runs
		QueueSettings settings = new QueueSettings(Duration.ofSeconds(30), 3, Duration.ofSeconds(2), Duration.ofMinutes(1));
		for (String name : List.of("first", "second")) {
			SerialQueueTests.ItemHandler failingOnce = (task, item) -> {
				this.runs.add(name + ":" + task.attempt());
				if (task.attempt() == 1) {
					throw new IllegalStateException("first attempt fails");
				}
			};
			worker(name, 1, IdleWorkers.HEDGE_DELAY, settings, failingOnce);
		}
		awaitIdleMark();
		this.instances.get(0).submit(QUEUE, "g", new Item("g", 0, 0));
		String delayed = QueueKeys.of(this.redis.prefix(), QUEUE).base() + ":delayed";
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.template().opsForZSet().zCard(delayed) == 1);
		String failedOn = this.runs.get(0).split(":")[0];
		RedisSerialQueue failing = this.instances.get(failedOn.equals("first") ? 0 : 1);
		failing.setShutdownTimeout(Duration.ZERO);
		failing.stop();
		String other = failedOn.equals("first") ? "second" : "first";
		// far sooner than an idle worker's own look (IdleWorkers.IDLE_LOOK, 30s): the other instance
		// learned when the retry falls due from the failure's message
		await().atMost(Duration.ofSeconds(10)).until(() -> this.runs.size() == 2);
		assertThat(this.runs).containsExactly(failedOn + ":1", other + ":2");
	}

	@Test
	void aTaskWhoseInstanceWentSilentRunsAgainSoonAfterItsShortLeaseOnAnIdleInstance() throws Exception {
		// a 2s lease, far shorter than an idle worker's own look (IdleWorkers.IDLE_LOOK, 30s)
		QueueSettings settings = new QueueSettings(Duration.ofSeconds(2), 3, Duration.ofSeconds(1), Duration.ofMinutes(1));
		CountDownLatch silent = new CountDownLatch(1);
		// a 1s hedge keeps the survivor out of the race for the task: the instance that goes silent
		// starts it with its woken take, so the survivor never takes while the task runs
		worker("survivor", 1, Duration.ofSeconds(1), settings, (task, item) -> this.runs.add("survivor:" + task.attempt()));
		await().atMost(Duration.ofSeconds(10)).until(() -> "survivor".equals(idleMark()));
		Thread.sleep(300);
		LettuceConnectionFactory silencedFactory = RedisConnections.standalone();
		RedisSerialQueue silenced = worker("silenced", 1, Duration.ofSeconds(1), settings, silencedFactory, (task, item) -> {
			this.runs.add("silenced:" + task.attempt());
			silent.await(50, TimeUnit.SECONDS);
		});
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> "silenced".equals(idleMark()));
			Thread.sleep(300);
			silenced.submit(QUEUE, "g", new Item("g", 0, 0));
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.runs.isEmpty());
			assertThat(this.runs).containsExactly("silenced:1");
			// no renewal and no end from now on: as an instance that died or was cut off from Redis
			silencedFactory.destroy();
			long silentAt = System.nanoTime();
			await().atMost(Duration.ofSeconds(40)).until(() -> this.runs.size() == 2);
			assertThat(this.runs.get(1)).isEqualTo("survivor:2");
			assertThat(Duration.ofNanos(System.nanoTime() - silentAt)).as("from silence to the task's next attempt, lease 2s")
				.isLessThan(Duration.ofSeconds(15));
		}
		finally {
			silent.countDown();
			this.instances.remove(silenced);
			silenced.setShutdownTimeout(Duration.ZERO);
			try {
				silenced.stop();
			}
			catch (RuntimeException ex) {
				// its connections are gone
			}
		}
	}

	/** Once the workers wait idle, sets the idle mark to {@code mark} and submits a task of a new group. */
	private void submitWithIdleMark(String mark) throws InterruptedException {
		awaitIdleMark();
		this.redis.template().opsForValue().set(QueueKeys.of(this.redis.prefix(), QUEUE).base() + ":idle", mark,
				Duration.ofMinutes(1));
		this.instances.get(0).submit(QUEUE, "g", new Item("g", 0, 0));
	}

	@Test
	void resumingAQueueStartsAsManyIdleWorkersAsGroupsWaitAtOnce() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		// tasks that run until released: no task's end can start the next group
		SerialQueueTests.ItemHandler blocking = (task, item) -> {
			this.runs.add(item.group());
			release.await(30, TimeUnit.SECONDS);
		};
		RedisSerialQueue first = worker("first", 4, IdleWorkers.HEDGE_DELAY, blocking);
		worker("second", 4, IdleWorkers.HEDGE_DELAY, blocking);
		awaitIdleMark();
		try {
			assertThat(first.pause(QUEUE, null)).isTrue();
			for (int i = 0; i < 6; i++) {
				first.submit(QUEUE, "g" + i, new Item("g" + i, 0, 0));
			}
			Thread.sleep(300);
			assertThat(this.runs).as("runs while the queue is paused").isEmpty();
			assertThat(first.resume(QUEUE, null)).isTrue();
			// far sooner than an idle worker's own look (IdleWorkers.IDLE_LOOK, 30s)
			await().atMost(Duration.ofSeconds(3)).until(() -> this.runs.size() == 6);
			assertThat(this.runs).containsExactlyInAnyOrder("g0", "g1", "g2", "g3", "g4", "g5");
		}
		finally {
			release.countDown();
		}
	}

	/** A started instance with one worker, waking for wake-ups told to others after {@code hedgeDelay}. */
	private RedisSerialQueue worker(String name, Duration hedgeDelay) {
		return worker(name, 1, hedgeDelay, (task, item) -> this.runs.add(name + ":" + item.sequence()));
	}

	private RedisSerialQueue worker(String name, int concurrency, Duration hedgeDelay, SerialQueueTests.ItemHandler handler) {
		return worker(name, concurrency, hedgeDelay, QueueSettings.DEFAULTS, handler);
	}

	private RedisSerialQueue worker(String name, int concurrency, Duration hedgeDelay, QueueSettings settings,
			SerialQueueTests.ItemHandler handler) {
		return worker(name, concurrency, hedgeDelay, settings, this.redis.factory(), handler);
	}

	private RedisSerialQueue worker(String name, int concurrency, Duration hedgeDelay, QueueSettings settings,
			RedisConnectionFactory connectionFactory, SerialQueueTests.ItemHandler handler) {
		RedisSerialQueue queue = new RedisSerialQueue(connectionFactory, JSON);
		queue.setKeyPrefix(this.redis.prefix());
		queue.setDefaults(settings);
		queue.setInstanceId(name);
		queue.listen(QUEUE, concurrency, items(handler), "test handler " + name);
		queue.hedgeDelay(QUEUE, hedgeDelay);
		queue.start();
		this.instances.add(queue);
		return queue;
	}

	/** Waits until every instance's worker took nothing and one of them marked the queue idle. */
	private void awaitIdleMark() throws InterruptedException {
		await().atMost(Duration.ofSeconds(10)).until(() -> idleMark() != null);
		// each worker's first take, at its start, finds nothing; the last of them names the mark
		Thread.sleep(500);
	}

	private String idleMark() {
		return this.redis.template().opsForValue().get(QueueKeys.of(this.redis.prefix(), QUEUE).base() + ":idle");
	}

}
