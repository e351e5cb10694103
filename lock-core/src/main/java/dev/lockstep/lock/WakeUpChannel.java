package dev.lockstep.lock;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.redis.RedisAddress;

/**
 * This instance's one subscription, to its own wake-up channel: every lock hands over to this
 * instance's waiters through it. Messages are delivered on the connection's thread (they only
 * complete a future). While Redis cannot be reached the container keeps retrying on a thread of
 * its own, so that an application can start while Redis is down; until it is subscribed,
 * heartbeats stand in for wake-ups.
 */
final class WakeUpChannel {

	private static final Logger logger = LoggerFactory.getLogger(WakeUpChannel.class);

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	/** Where Redis is tried, in words, for messages. */
	private final String redis;

	WakeUpChannel(RedisConnectionFactory connectionFactory, String channel, MessageListener listener, Duration startWait) {
		this.redis = RedisAddress.of(connectionFactory);
		this.container.setConnectionFactory(connectionFactory);
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setRecoveryInterval(2000);
		this.container.setBeanName("lockstep-wake-ups");
		this.container.addMessageListener(listener, new ChannelTopic(channel));
		this.container.afterPropertiesSet();
		DaemonThreads.start("lockstep-wake-up-subscriber", this::subscribe);
		awaitListening(startWait);
	}

	private void subscribe() {
		try {
			this.container.start();
		}
		catch (RuntimeException ex) {
			logger.warn("Lockstep wake-ups are not subscribed on {}; waiters rely on heartbeats: {}", this.redis,
					ex.getMessage());
		}
	}

	/** Gives a reachable Redis a moment to confirm the subscription, so that the first hand-overs find it. */
	private void awaitListening(Duration wait) {
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
		if (!this.container.isListening()) {
			logger.info("Lockstep wake-ups not subscribed yet ({} unreachable?); they follow once Redis answers", this.redis);
		}
	}

	void close() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Closing the wake-up subscription failed", ex);
		}
	}

}
