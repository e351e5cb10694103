package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of one serial queue, under {@code lockstep.queue.queues.<name>}; each left unset comes
 * from {@code lockstep.queue}.
 *
 * @param leaseTime Lease of a running task of this queue.
 * @param maxAttempts How many times a task of this queue is started before it goes to the dead letters.
 * @param retryBackoff Wait before the first retry of a failed task of this queue, doubled for each
 * further retry.
 * @param deduplicationWindow How long a deduplication id of this queue is remembered.
 */
public record QueueOverrideProperties(@Nullable Duration leaseTime, @Nullable Integer maxAttempts,
		@Nullable Duration retryBackoff, @Nullable Duration deduplicationWindow) {

}
