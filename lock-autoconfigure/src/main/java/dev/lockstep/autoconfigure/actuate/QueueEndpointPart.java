package dev.lockstep.autoconfigure.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueRegistry;

/**
 * {@code queues} and {@code queues/{name}} of the endpoint, read through the
 * {@link SerialQueueRegistry}; a dead task's redrive and discard go through the same bean's
 * {@link SerialQueue} API.
 * @param queues the serial queues' views
 */
record QueueEndpointPart(SerialQueueRegistry queues) {

	/** How many dead letters {@code queues/{name}} shows. */
	static final int DEAD_LETTERS_SHOWN = 20;

	/** How many running and waiting groups {@code queues/{name}} reads, of each. */
	static final int GROUPS_SHOWN = 20;

	/** {@code queues} (no name) or {@code queues/{name}}; a queue that looks like a typo is not found. */
	@Nullable Object read(@Nullable String name) {
		if (name == null) {
			return this.queues.listenedQueues()
				.stream()
				.map((queue) -> new LockstepEndpoint.QueueSummary(queue, this.queues.stats(queue)))
				.toList();
		}
		boolean listened = this.queues.listenedQueues().contains(name);
		QueueStats stats = this.queues.stats(name);
		// a queue nobody listens to here, that has no settings of its own and holds no task, is a typo: not found
		if (!listened && !this.queues.hasOwnSettings(name) && stats.equals(new QueueStats(0, 0, 0, 0))) {
			return null;
		}
		return new LockstepEndpoint.QueueDetail(name, listened, this.queues.settings(name), stats,
				this.queues.busiestGroups(name, GROUPS_SHOWN), this.queues.deadLetters(name, DEAD_LETTERS_SHOWN));
	}

	LockstepEndpoint.@Nullable Redriven redrive(String name, String taskId) {
		return (this.queues instanceof SerialQueue queue)
				? new LockstepEndpoint.Redriven(name, taskId, queue.redrive(name, taskId)) : null;
	}

	LockstepEndpoint.@Nullable Discarded discard(String name, String taskId) {
		return (this.queues instanceof SerialQueue queue)
				? new LockstepEndpoint.Discarded(name, taskId, queue.discard(name, taskId)) : null;
	}

}
