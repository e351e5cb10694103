package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A task of a {@link SerialQueue}, as Redis holds it when read. A listener method may take one as
 * a parameter beside the payload: {@link #id()} is stable across retries and redeliveries, so it
 * (or the deduplication id the task was submitted with) makes a handler idempotent.
 * <p>
 * The task a listener is given is its attempt: {@link #isCurrent()} says whether the attempt's
 * lease still holds, and {@link #fencingToken()} lets the protected resource reject a write from
 * an attempt that outlived its lease (a paused JVM) while later tasks of its group ran elsewhere.
 * @param id the task's id, returned by {@link SerialQueue#submit}
 * @param queue the queue's name
 * @param group the task's group
 * @param state where the task is
 * @param attempt how many times the task has been started (0 while it waits for its first run): a
 * take counts, unless its worker never began the task and could tell Redis so (a lost reply, a
 * stopping instance)
 * @param submittedAt when the task was stored, by the Redis server's clock
 * @param lastError the exception class and message of the last failed attempt, or why it died
 * @param fencingToken for the task a listener is given: the Redis server's clock in microseconds
 * when this attempt started, so it increases with every attempt and every later task of the group
 * (as long as the server's clock does not step back); 0 for a task read through the views
 * @param lease for the task a listener is given: this attempt's lease; {@link Lease#NONE} for a
 * task read through the views
 */
public record SerialTask(String id, String queue, String group, State state, int attempt, Instant submittedAt,
		@Nullable String lastError, long fencingToken, Lease lease) {

	/** A task as the views read it: no attempt of this instance, so no lease and no token. */
	public SerialTask(String id, String queue, String group, State state, int attempt, Instant submittedAt,
			@Nullable String lastError) {
		this(id, queue, group, state, attempt, submittedAt, lastError, 0L, Lease.NONE);
	}

	/**
	 * Whether this attempt's lease still holds, as its instance knows it: true while the attempt
	 * runs and its lease has been renewed in time; false once the lease ran out by this instance's
	 * clock (counted from before each renewal was sent, so never later than Redis's expiry), once a
	 * renewal found it gone, and once the attempt ended. An attempt that is no longer current may
	 * overlap the task's next attempt and any later task of its group on another instance: check it
	 * before a write that must not overlap, or better, pass {@link #fencingToken()} to the write.
	 * Always false for a task read through the views.
	 */
	public boolean isCurrent() {
		return this.lease.isCurrent();
	}

	/** The lease of one attempt of a task, as its instance knows it. */
	@FunctionalInterface
	public interface Lease {

		/** No attempt: a task read through the views. */
		Lease NONE = () -> false;

		/**
		 * Whether the lease still holds.
		 * @return see {@link SerialTask#isCurrent()}
		 */
		boolean isCurrent();

	}

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
