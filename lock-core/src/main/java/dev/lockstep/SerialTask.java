package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task of a {@link SerialQueue}, as Redis holds it when read. A listener method may take one as
 * a parameter beside the payload: {@link #id()} is stable across retries and redeliveries, so it
 * (or the deduplication id the task was submitted with) makes a handler idempotent.
 * @param id the task's id, returned by {@link SerialQueue#submit}
 * @param queue the queue's name
 * @param group the task's group
 * @param state where the task is
 * @param attempt how many times the task has been started (0 while it waits for its first run)
 * @param submittedAt when the task was stored, by the Redis server's clock
 * @param lastError the exception class and message of the last failed attempt, or why it died
 */
public record SerialTask(String id, String queue, String group, State state, int attempt, Instant submittedAt,
		@Nullable String lastError) {

	/** Where a task is. */
	public enum State {

		/**
		 * Waiting for its group's turn, for a retry after a failed attempt, or, once its lease ran
		 * out (its instance stopped or stalled), for a worker to take it back: to run it again, or
		 * to bury it if that was its last attempt (unless its own worker, only stalled, renews the
		 * lease first: then it is running again).
		 */
		QUEUED,

		/** Being run by a listener, under a lease that has not run out; the lease is renewed while it runs. */
		RUNNING,

		/** Run successfully; kept for the deduplication window. */
		DONE,

		/** Failed on every attempt, or its payload could not be read; kept until redriven or discarded. */
		DEAD

	}

}
