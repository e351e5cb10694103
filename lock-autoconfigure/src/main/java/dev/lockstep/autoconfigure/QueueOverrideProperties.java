package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of one serial queue, under {@code lockstep.queue.queues.<name>}; each left unset comes
 * from {@code lockstep.queue}.
 */
public class QueueOverrideProperties {

	/**
	 * Lease of a running task of this queue.
	 */
	private @Nullable Duration leaseTime;

	/**
	 * How many times a task of this queue is started before it goes to the dead letters.
	 */
	private @Nullable Integer maxAttempts;

	/**
	 * Wait before the first retry of a failed task of this queue, doubled for each further retry.
	 */
	private @Nullable Duration retryBackoff;

	/**
	 * How long a deduplication id of this queue is remembered.
	 */
	private @Nullable Duration deduplicationWindow;

	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(@Nullable Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public @Nullable Duration getRetryBackoff() {
		return this.retryBackoff;
	}

	public void setRetryBackoff(@Nullable Duration retryBackoff) {
		this.retryBackoff = retryBackoff;
	}

	public @Nullable Duration getDeduplicationWindow() {
		return this.deduplicationWindow;
	}

	public void setDeduplicationWindow(@Nullable Duration deduplicationWindow) {
		this.deduplicationWindow = deduplicationWindow;
	}

}
