package dev.lockstep;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What waits in a queue beyond its counts, as the monitoring views show it (read in one step by
 * {@link SerialQueueRegistry#backlog(String, int)}).
 * @param retriesWaiting groups whose head task failed and waits out its retry backoff
 * @param retriesDueNow of those, the ones whose retry is due already (a worker's next take readies them)
 * @param nextRetryIn how long until the next retry falls due, or null when none waits
 * @param oldestSubmitted when the oldest task not yet done (queued, waiting for a retry or
 * running) was submitted (Redis server clock), or null when there is none; read from the first two
 * tasks of each group, which hold a group's oldest unless repeated redrives put an older one
 * further back
 * @param complete whether every group was read; when false, {@code oldestSubmitted} is the oldest
 * among the groups read
 */
public record QueueBacklog(long retriesWaiting, long retriesDueNow, @Nullable Duration nextRetryIn,
		@Nullable Instant oldestSubmitted, boolean complete) {
}
