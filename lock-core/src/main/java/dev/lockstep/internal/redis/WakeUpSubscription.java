package dev.lockstep.internal.redis;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.lockstep.internal.DaemonThreads;

/**
 * A feature's subscription to its wake-up channels on the application's Redis: one connection,
 * messages delivered on the connection's thread (a listener only completes a future or releases a
 * permit). The subscription starts on a thread of its own and, while Redis cannot be reached, the
 * container keeps retrying every two seconds, so that an application can start while Redis is
 * down; a feature must not depend on every wake-up arriving (the lock's heartbeats and the queue's
 * idle looks stand in). Internal to Lockstep.
 */
public final class WakeUpSubscription {

	private static final Logger logger = LoggerFactory.getLogger(WakeUpSubscription.class);

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final String name;

	private final String meanwhile;

	/** Where Redis is tried, in words, for messages. */
	private final String redis;

	private boolean started;

	/**
	 * @param connectionFactory the application's Redis
	 * @param name the subscription's name, which also names its thread ({@code lockstep-wake-ups})
	 * @param meanwhile what stands in for wake-ups while they are not subscribed, for the warning
	 */
	public WakeUpSubscription(RedisConnectionFactory connectionFactory, String name, String meanwhile) {
		this.redis = RedisAddress.of(connectionFactory);
		this.name = name;
		this.meanwhile = meanwhile;
		this.container.setConnectionFactory(connectionFactory);
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setRecoveryInterval(2000);
		this.container.setBeanName(name);
		this.container.afterPropertiesSet();
	}

	/** Adds {@code listener} for {@code channel}, also once the subscription has started. */
	public void listen(String channel, MessageListener listener) {
		this.container.addMessageListener(listener, new ChannelTopic(channel));
	}

	/**
	 * Starts subscribing (once) and gives a reachable Redis up to {@code wait} to confirm it, so that
	 * the first wake-ups find it.
	 */
	public synchronized void start(Duration wait) {
		if (!this.started) {
			this.started = true;
			DaemonThreads.start(this.name + "-subscriber", this::subscribe);
		}
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
		if (!wait.isZero() && !this.container.isListening()) {
			logger.info("Lockstep {} not subscribed yet ({} unreachable?); they follow once Redis answers", this.name,
					this.redis);
		}
	}

	private void subscribe() {
		try {
			this.container.start();
		}
		catch (RuntimeException ex) {
			logger.warn("Lockstep {} are not subscribed on {}; {}: {}", this.name, this.redis, this.meanwhile,
					ex.getMessage());
		}
	}

	/** Whether the subscription is confirmed by Redis. */
	public boolean isListening() {
		return this.container.isListening();
	}

	public void close() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Closing the {} subscription failed", this.name, ex);
		}
	}

}
