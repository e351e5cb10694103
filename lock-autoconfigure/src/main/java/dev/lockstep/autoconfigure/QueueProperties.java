package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.util.unit.DataSize;

import dev.lockstep.internal.DurationRules;
import dev.lockstep.queue.QueueSettings;

/**
 * Settings of serial queues ({@code SerialQueue} and {@code @SerialQueueListener}).
 */
public class QueueProperties {

	/**
	 * Whether serial queues are enabled.
	 */
	private boolean enabled = true;

	/**
	 * Lease of a running task, renewed every third of it while the task runs; a task whose instance
	 * dies runs again after this time.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * How many times a task is started before it goes to the dead letters (failed attempts, and
	 * attempts cut short by a crash or a shutdown).
	 */
	private int maxAttempts = 3;

	/**
	 * Wait before the first retry of a failed task, doubled for each further retry; the task's group
	 * waits with it.
	 */
	private Duration retryBackoff = Duration.ofSeconds(1);

	/**
	 * How long a deduplication id is remembered, and a done task can still be read.
	 */
	private Duration deduplicationWindow = Duration.ofMinutes(10);

	/**
	 * How long a stopping instance lets its running tasks finish; tasks still running then are given
	 * back to run on another instance.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * Largest payload a task may have, as JSON; a larger one is refused before anything is stored.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Settings of particular queues, by queue name; what a queue does not set comes from the settings
	 * above.
	 */
	private Map<String, QueueOverrideProperties> queues = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = DurationRules.renewedLease("lockstep.queue.lease-time", leaseTime);
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = atLeastOne("lockstep.queue.max-attempts", maxAttempts);
	}

	public Duration getRetryBackoff() {
		return this.retryBackoff;
	}

	public void setRetryBackoff(Duration retryBackoff) {
		this.retryBackoff = DurationRules.notNegative("lockstep.queue.retry-backoff", retryBackoff);
	}

	public Duration getDeduplicationWindow() {
		return this.deduplicationWindow;
	}

	public void setDeduplicationWindow(Duration deduplicationWindow) {
		this.deduplicationWindow = DurationRules.atLeast("lockstep.queue.deduplication-window", deduplicationWindow,
				DurationRules.SHORTEST_DEDUPLICATION_WINDOW);
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = DurationRules.notNegative("lockstep.queue.shutdown-timeout", shutdownTimeout);
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		if (maxPayloadSize.toBytes() <= 0) {
			throw new IllegalArgumentException("lockstep.queue.max-payload-size must be positive, was " + maxPayloadSize);
		}
		this.maxPayloadSize = maxPayloadSize;
	}

	public Map<String, QueueOverrideProperties> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, QueueOverrideProperties> queues) {
		this.queues = queues;
	}

	/** The settings of {@code queue}: its own where it sets them, the defaults above otherwise. */
	public QueueSettings settings(String queue) {
		QueueOverrideProperties own = this.queues.get(queue);
		if (own == null) {
			return defaults();
		}
		String at = "lockstep.queue.queues." + queue + ".";
		return new QueueSettings(
				(own.getLeaseTime() != null) ? DurationRules.renewedLease(at + "lease-time", own.getLeaseTime())
						: this.leaseTime,
				(own.getMaxAttempts() != null) ? atLeastOne(at + "max-attempts", own.getMaxAttempts()) : this.maxAttempts,
				(own.getRetryBackoff() != null) ? DurationRules.notNegative(at + "retry-backoff", own.getRetryBackoff())
						: this.retryBackoff,
				(own.getDeduplicationWindow() != null)
						? DurationRules.atLeast(at + "deduplication-window", own.getDeduplicationWindow(),
								DurationRules.SHORTEST_DEDUPLICATION_WINDOW)
						: this.deduplicationWindow);
	}

	/** The settings of queues without settings of their own. */
	public QueueSettings defaults() {
		return new QueueSettings(this.leaseTime, this.maxAttempts, this.retryBackoff, this.deduplicationWindow);
	}

	private static int atLeastOne(String property, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(property + " must be at least 1, was " + value);
		}
		return value;
	}

}
