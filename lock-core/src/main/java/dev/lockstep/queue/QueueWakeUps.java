package dev.lockstep.queue;

import java.time.Duration;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.redis.RedisAddress;

/**
 * This instance's subscription to the wake-up channels of the queues it listens to: a message says
 * that a group's next task may start, and wakes one idle worker of that queue. While Redis cannot be
 * reached the container keeps retrying on a thread of its own; idle workers also look on their own
 * every {@link IdleWorkers#IDLE_LOOK}, so a wake-up lost meanwhile delays a task, never strands it.
 */
final class QueueWakeUps {

	private static final Logger logger = LoggerFactory.getLogger(QueueWakeUps.class);

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	/** Where Redis is tried, in words, for messages. */
	private final String redis;

	QueueWakeUps(RedisConnectionFactory connectionFactory, Map<String, Runnable> channels, Duration startWait) {
		this.redis = RedisAddress.of(connectionFactory);
		this.container.setConnectionFactory(connectionFactory);
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setRecoveryInterval(2000);
		this.container.setBeanName("lockstep-queue-wake-ups");
		channels.forEach((channel, wake) -> this.container.addMessageListener((message, pattern) -> wake.run(),
				new ChannelTopic(channel)));
		this.container.afterPropertiesSet();
		if (!channels.isEmpty()) {
			subscribe(startWait);
		}
	}

	/** Also after the subscription started: for a queue registered late. */
	void listen(String channel, Runnable wake) {
		this.container.addMessageListener((message, pattern) -> wake.run(), new ChannelTopic(channel));
		if (!this.container.isRunning()) {
			subscribe(Duration.ZERO);
		}
	}

	private void subscribe(Duration wait) {
		DaemonThreads.start("lockstep-queue-wake-up-subscriber", () -> {
			try {
				this.container.start();
			}
			catch (RuntimeException ex) {
				logger.warn("Lockstep queue wake-ups are not subscribed on {}; idle workers look every {}: {}", this.redis,
						IdleWorkers.IDLE_LOOK, ex.getMessage());
			}
		});
		long deadline = System.nanoTime() + wait.toNanos();
		while (!this.container.isListening() && System.nanoTime() - deadline < 0) {
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	void close() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Closing the queue wake-up subscription failed", ex);
		}
	}

}
