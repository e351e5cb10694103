package dev.lockstep.internal.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.lockstep.internal.DaemonThreads;

/**
 * A feature's subscription to its wake-up channels on the application's Redis: one connection,
 * messages delivered on the connection's thread (a listener only completes a future or releases a
 * permit). The subscription starts on a thread of its own and, while Redis cannot be reached, the
 * container keeps retrying every two seconds, so that an application can start while Redis is
 * down; a feature must not depend on every wake-up arriving (the lock's heartbeats and the queue's
 * idle looks stand in). A message published before Redis confirmed the SUBSCRIBE of its channel is
 * not heard: a feature can be told of each confirmation, channel by channel (the first, and again
 * after a reconnect), to look for what it may have missed. Internal to Lockstep.
 */
public final class WakeUpSubscription {

	private static final Logger logger = LoggerFactory.getLogger(WakeUpSubscription.class);

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final String name;

	private final String meanwhile;

	/** Where Redis is tried, in words, for messages. */
	private final String redis;

	private boolean started;

	/** Each channel listened to, and whether Redis confirmed its SUBSCRIBE yet. */
	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	/** Whether a thread subscribes the channels left out now (see {@link #confirmedOne}). */
	private final AtomicBoolean resubscribing = new AtomicBoolean();

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
		listen(channel, listener, null);
	}

	/**
	 * Adds {@code listener} for {@code channel}, also once the subscription has started; then
	 * {@code subscribed}, if given, runs each time Redis confirms the channel's SUBSCRIBE (the first
	 * time, and again after a reconnect), on the subscription's connection thread: it must not block.
	 * Messages published before a confirmation may have gone unheard. When the subscription is running
	 * already, this returns once Redis confirmed the channel (or the container gave up waiting).
	 */
	public void listen(String channel, MessageListener listener, @Nullable Runnable subscribed) {
		Channel added = new Channel(listener, subscribed);
		this.channels.put(channel, added);
		try {
			this.container.addMessageListener(added, new ChannelTopic(channel));
		}
		catch (RuntimeException ex) {
			// Redis did not answer the SUBSCRIBE: the channel stays in the container's books, and is
			// subscribed again once a confirmation shows the connection back (see Channel)
			logger.warn("Lockstep {} could not subscribe channel {} on {} yet; {}: {}", this.name, channel, this.redis,
					this.meanwhile, ex.getMessage());
			return;
		}
		resubscribeMissing();
	}

	/**
	 * Subscribes again each channel Redis has not confirmed while the subscription is confirmed: the
	 * container leaves out a channel added while its first SUBSCRIBE was under way (it subscribes
	 * the channels it had when it began, and a channel added meanwhile only waits for that).
	 * Adding the same listener again sends the SUBSCRIBE; Redis confirms an existing one again.
	 */
	private void resubscribeMissing() {
		if (!this.container.isListening()) {
			// the container subscribes every channel when it starts listening (see subscribe)
			return;
		}
		this.channels.forEach((channel, listened) -> {
			if (!listened.confirmed) {
				try {
					this.container.addMessageListener(listened, new ChannelTopic(channel));
				}
				catch (RuntimeException ex) {
					logger.warn("Lockstep {} could not subscribe channel {} on {}; {}: {}", this.name, channel, this.redis,
							this.meanwhile, ex.getMessage());
				}
			}
		});
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
			resubscribeMissing();
		}
		catch (RuntimeException ex) {
			logger.warn("Lockstep {} are not subscribed on {}; {}: {}", this.name, this.redis, this.meanwhile,
					ex.getMessage());
		}
	}

	/**
	 * Redis confirmed a channel's SUBSCRIBE (a reconnect confirms every channel the connection had
	 * again): a channel whose SUBSCRIBE failed meanwhile (added while Redis did not answer) is
	 * subscribed now, off the connection's thread, which the SUBSCRIBE's own confirmation needs.
	 */
	private void confirmedOne() {
		if (this.channels.values().stream().anyMatch((channel) -> !channel.confirmed)
				&& this.resubscribing.compareAndSet(false, true)) {
			DaemonThreads.start(this.name + "-resubscriber", () -> {
				try {
					resubscribeMissing();
				}
				finally {
					this.resubscribing.set(false);
				}
			});
		}
	}

	/** Whether the subscription is confirmed by Redis. */
	public boolean isListening() {
		return this.container.isListening();
	}

	/** One channel's listener, told when Redis confirms the channel's SUBSCRIBE. */
	private final class Channel implements MessageListener, SubscriptionListener {

		private final MessageListener listener;

		private final @Nullable Runnable subscribed;

		private volatile boolean confirmed;

		Channel(MessageListener listener, @Nullable Runnable subscribed) {
			this.listener = listener;
			this.subscribed = subscribed;
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.listener.onMessage(message, pattern);
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.confirmed = true;
			confirmedOne();
			if (this.subscribed != null) {
				try {
					this.subscribed.run();
				}
				catch (RuntimeException ex) {
					logger.warn("A listener to the SUBSCRIBE of {} failed", new String(channel, StandardCharsets.UTF_8), ex);
				}
			}
		}

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
