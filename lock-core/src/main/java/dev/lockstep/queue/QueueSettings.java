package dev.lockstep.queue;

import java.time.Duration;

import org.springframework.util.Assert;

import dev.lockstep.SerialQueueRegistry;

import dev.lockstep.internal.DurationRules;

/**
 * How one queue's tasks are run: the lease a running task holds (renewed every third of it while
 * it runs), the attempts before a task goes to the dead letters, the backoff before the first retry
 * (doubled for each further one) and how long a deduplication id is remembered. Public so that the
 * auto-configuration can pass the properties' values.
 */
public record QueueSettings(Duration leaseTime, int maxAttempts, Duration retryBackoff, Duration deduplicationWindow)
		implements SerialQueueRegistry.Settings {

	/** The defaults: a 30s lease, 3 attempts, 1s backoff, a 10 minute deduplication window. */
	public static final QueueSettings DEFAULTS = new QueueSettings(Duration.ofSeconds(30), 3, Duration.ofSeconds(1),
			Duration.ofMinutes(10));

	/** Longest backoff between two attempts, however many there are. */
	static final Duration MAX_BACKOFF = Duration.ofHours(1);

	public QueueSettings {
		DurationRules.renewedLease("Lease time", leaseTime);
		Assert.isTrue(maxAttempts >= 1, () -> "Max attempts must be at least 1, was " + maxAttempts);
		DurationRules.notNegative("Retry backoff", retryBackoff);
		DurationRules.atLeast("Deduplication window", deduplicationWindow, DurationRules.SHORTEST_DEDUPLICATION_WINDOW);
	}

	/** The wait before attempt {@code attempt + 1}, after attempt {@code attempt} (1-based) failed. */
	Duration backoffAfter(int attempt) {
		Duration backoff = this.retryBackoff;
		for (int i = 1; i < attempt && backoff.compareTo(MAX_BACKOFF) < 0; i++) {
			backoff = backoff.multipliedBy(2);
		}
		return (backoff.compareTo(MAX_BACKOFF) > 0) ? MAX_BACKOFF : backoff;
	}

}
