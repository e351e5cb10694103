package dev.lockstep.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a wake-up goes, against a real Redis: to the instance whose worker went idle last, alone,
 * while a client listens on its channel, and to every instance otherwise; and how an instance told
 * alone hands it to a waiting worker, or says it has none.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueWakeUpTests {

	private static final QueueSettings SETTINGS = new QueueSettings(Duration.ofSeconds(30), 3, Duration.ZERO,
			Duration.ofMinutes(5));

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

	private QueueScripts scripts;

	private QueueKeys keys;

	@BeforeEach
	void listen() throws InterruptedException {
		this.scripts = new QueueScripts(new RedisScripts(this.redis.factory()));
		this.keys = QueueKeys.of(this.redis.prefix(), "q");
		this.container.setConnectionFactory(this.redis.factory());
		this.container.afterPropertiesSet();
		// the shared channel, and instance a's alone; nobody listens for instance b
		for (String channel : List.of(this.keys.channel(), this.keys.channelTo("a"))) {
			this.container.addMessageListener((message, pattern) -> this.heard.add(new String(message.getChannel())),
					new ChannelTopic(channel));
		}
		CountDownLatch subscribed = new CountDownLatch(1);
		this.container.start();
		// a message to the shared channel, heard, says the subscriptions are in place
		while (subscribed.getCount() > 0) {
			this.redis.template().convertAndSend(this.keys.channel(), "");
			if (this.heard.poll(100, TimeUnit.MILLISECONDS) != null) {
				subscribed.countDown();
			}
		}
		this.heard.clear();
	}

	@AfterEach
	void stop() {
		this.container.stop();
	}

	@Test
	void aWakeUpGoesToTheInstanceWhoseWorkerWentIdleLastAloneWhileItListens() throws Exception {
		assertThat(get(this.scripts.take(this.keys, "a:r:1", SETTINGS, false)).task()).isNull();
		assertThat(this.redis.template().opsForValue().get(this.keys.base() + ":idle")).isEqualTo(this.keys.channelTo("a"));
		get(this.scripts.submit(this.keys, "t1", "g1", "{}", null, Duration.ofMinutes(5)));
		assertThat(this.heard.poll(5, TimeUnit.SECONDS)).as("told alone").isEqualTo(this.keys.channelTo("a"));
		assertThat(this.heard.poll(200, TimeUnit.MILLISECONDS)).as("and nobody else").isNull();

		// instance b's worker went idle last, and nobody listens on b's channel: every instance is told
		assertThat(get(this.scripts.take(this.keys, "b:r:2", SETTINGS, false)).task()).isNotNull();
		assertThat(get(this.scripts.take(this.keys, "b:r:3", SETTINGS, false)).task()).isNull();
		get(this.scripts.submit(this.keys, "t2", "g2", "{}", null, Duration.ofMinutes(5)));
		assertThat(this.heard.poll(5, TimeUnit.SECONDS)).as("every instance told").isEqualTo(this.keys.channel());
		assertThat(this.heard.poll(200, TimeUnit.MILLISECONDS)).isNull();

		// a finish whose group goes on, with work left after its own take, tells a's channel alone again
		assertThat(get(this.scripts.take(this.keys, "a:r:4", SETTINGS, false)).task().id()).isEqualTo("t2");
		get(this.scripts.submit(this.keys, "t3", "g2", "{}", null, Duration.ofMinutes(5)));
		get(this.scripts.submit(this.keys, "t4", "g3", "{}", null, Duration.ofMinutes(5)));
		assertThat(this.heard.poll(5, TimeUnit.SECONDS)).as("b's mark still: every instance told").isEqualTo(this.keys.channel());
		assertThat(get(this.scripts.take(this.keys, "a:r:5", SETTINGS, false)).task().id()).isEqualTo("t4");
		assertThat(get(this.scripts.take(this.keys, "a:r:6", SETTINGS, false)).task()).isNull();
		QueueScripts.Finished finished = get(this.scripts.finishAndTake(this.keys, "t1", "b:r:2", Duration.ofMinutes(5),
				"a:r:7", SETTINGS, false));
		assertThat(finished.next().task()).as("t1's group is done, and g2's next waits behind t2").isNull();
		QueueScripts.Finished second = get(this.scripts.finishAndTake(this.keys, "t4", "a:r:5", Duration.ofMinutes(5),
				"a:r:8", SETTINGS, false));
		assertThat(second.next().task()).isNull();
		get(this.scripts.submit(this.keys, "t5", "g4", "{}", null, Duration.ofMinutes(5)));
		get(this.scripts.submit(this.keys, "t6", "g5", "{}", null, Duration.ofMinutes(5)));
		QueueScripts.Finished third = get(this.scripts.finishAndTake(this.keys, "t2", "a:r:4", Duration.ofMinutes(5),
				"a:r:9", SETTINGS, false));
		assertThat(third.next().task()).as("the finisher takes the group that waited longest").isNotNull();
		for (int i = 0; i < 3; i++) {
			assertThat(this.heard.poll(5, TimeUnit.SECONDS)).as("two submits and the finish that left work tell a alone")
				.isEqualTo(this.keys.channelTo("a"));
		}
		assertThat(this.heard.poll(200, TimeUnit.MILLISECONDS)).isNull();
	}

	@Test
	void anInstanceToldAloneHandsTheWakeUpToAWaitingWorkerOrSaysItHasNone() throws Exception {
		IdleWorkers idle = new IdleWorkers(2);
		ScheduledExecutorService timer = new ScheduledThreadPoolExecutor(1);
		try {
			idle.reset(timer);
			assertThat(idle.handOff()).as("no worker waits").isFalse();
			CountDownLatch woke = new CountDownLatch(1);
			Thread worker = new Thread(() -> {
				idle.await(-1, TimeUnit.SECONDS.toNanos(20));
				woke.countDown();
			});
			worker.start();
			while (!idle.handOff()) {
				Thread.sleep(1);
			}
			assertThat(woke.await(5, TimeUnit.SECONDS)).as("the waiting worker woke").isTrue();
			// one worker waits: the first wake-up told alone is its, a second finds no worker for it
			Thread second = new Thread(() -> idle.await(-1, TimeUnit.SECONDS.toNanos(20)));
			second.start();
			while (!idle.handOff()) {
				Thread.sleep(1);
			}
			assertThat(idle.handOff()).as("a second wake-up with one worker waiting").isFalse();
			second.join(5000);
			assertThat(second.isAlive()).isFalse();
			// a wake-up every instance heard, held for the next worker to wait, is not a waiting worker
			Thread slow = new Thread(() -> idle.await(-1, TimeUnit.SECONDS.toNanos(20)));
			idle.wake();
			assertThat(idle.handOff()).as("nobody waits").isFalse();
			slow.start();
			slow.join(5000);
			assertThat(slow.isAlive()).as("the held wake-up wakes the next worker at once").isFalse();
		}
		finally {
			timer.shutdownNow();
		}
	}

	private static <T> T get(java.util.concurrent.CompletableFuture<T> reply) throws Exception {
		return reply.get(10, TimeUnit.SECONDS);
	}

}
