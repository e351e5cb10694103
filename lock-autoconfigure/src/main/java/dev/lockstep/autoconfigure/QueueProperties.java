package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.queue.QueueSettings;

/**
 * Settings of serial queues ({@code SerialQueue} and {@code @SerialQueueListener}).
 *
 * @param enabled Whether serial queues are enabled.
 * @param leaseTime Lease of a running task, renewed every third of it while the task runs; a task whose
 * instance dies runs again after this time.
 * @param maxAttempts How many times a task is started before it goes to the dead letters (failed
 * attempts, and attempts cut short by a crash or a shutdown).
 * @param retryBackoff Wait before the first retry of a failed task, doubled for each further retry; the
 * task's group waits with it.
 * @param deduplicationWindow How long a deduplication id is remembered, and a done task can still be
 * read.
 * @param shutdownTimeout How long a stopping instance lets its running tasks finish; tasks still running
 * then are given back to run on another instance, or go to the dead letters on their last attempt.
 * @param maxPayloadSize Largest payload a task may have, as JSON; a larger one is refused before
 * anything is stored.
 * @param queues Settings of particular queues, by queue name; what a queue does not set comes from the
 * settings above.
 */
public record QueueProperties(@DefaultValue("true") boolean enabled, @DefaultValue("30s") Duration leaseTime,
		@DefaultValue("3") int maxAttempts, @DefaultValue("1s") Duration retryBackoff,
		@DefaultValue("10m") Duration deduplicationWindow, @DefaultValue("30s") Duration shutdownTimeout,
		@DefaultValue("1MB") DataSize maxPayloadSize, Map<String, QueueOverrideProperties> queues) {

	private static final String PREFIX = "lockstep.queue.";

	/** Checks each setting, naming its property when one is out of range. */
	public QueueProperties {
		checked(PREFIX, leaseTime, maxAttempts, retryBackoff, deduplicationWindow);
		DurationRules.notNegative(PREFIX + "shutdown-timeout", shutdownTimeout);
		if (maxPayloadSize.toBytes() <= 0) {
			throw new IllegalArgumentException(PREFIX + "max-payload-size must be positive, was " + maxPayloadSize);
		}
		queues = (queues != null) ? Collections.unmodifiableMap(new LinkedHashMap<>(queues)) : Map.of();
		// a queue name that every call of the queue would refuse fails here, naming the property
		queues.keySet().forEach((queue) -> NamingRules.queueName(PREFIX + "queues key '"
				+ ((queue.length() > 64) ? queue.substring(0, 64) + "...'" : queue + "'"), queue));
	}

	/** The settings of {@code queue}: its own where it sets them, the defaults above otherwise. */
	public QueueSettings settings(String queue) {
		QueueOverrideProperties own = this.queues.get(queue);
		if (own == null) {
			return defaults();
		}
		return checked(PREFIX + "queues." + queue + ".", or(own.leaseTime(), this.leaseTime),
				or(own.maxAttempts(), this.maxAttempts), or(own.retryBackoff(), this.retryBackoff),
				or(own.deduplicationWindow(), this.deduplicationWindow));
	}

	/** The settings of queues without settings of their own. */
	public QueueSettings defaults() {
		return new QueueSettings(this.leaseTime, this.maxAttempts, this.retryBackoff, this.deduplicationWindow);
	}

	/** The settings, each checked in the words of its property under {@code at}. */
	private static QueueSettings checked(String at, Duration leaseTime, int maxAttempts, Duration retryBackoff,
			Duration deduplicationWindow) {
		DurationRules.renewedLease(at + "lease-time", leaseTime);
		if (maxAttempts < 1) {
			throw new IllegalArgumentException(at + "max-attempts must be at least 1, was " + maxAttempts);
		}
		DurationRules.notNegative(at + "retry-backoff", retryBackoff);
		DurationRules.atLeast(at + "deduplication-window", deduplicationWindow,
				DurationRules.SHORTEST_DEDUPLICATION_WINDOW);
		return new QueueSettings(leaseTime, maxAttempts, retryBackoff, deduplicationWindow);
	}

	private static <T> T or(@Nullable T own, T inherited) {
		return (own != null) ? own : inherited;
	}

}
