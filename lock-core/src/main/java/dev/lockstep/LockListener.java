package dev.lockstep;

import java.time.Duration;

/**
 * Observes what Lockstep does; every method has a no-op default. Implementations must be fast
 * and must not throw: they run on the caller's thread or on Lockstep's timer thread.
 */
public interface LockListener {

	/** A lock was acquired after waiting {@code waited}. */
	default void acquired(String key, long fencingToken, Duration waited) {
	}

	/** A lock was not acquired: it stayed held elsewhere for {@code waited}. */
	default void notAcquired(String key, Duration waited) {
	}

	/** A lock was released after being held for {@code held}. */
	default void released(String key, Duration held) {
	}

	/** A lock was lost while its holder still believed it held it. */
	default void lost(LockLostEvent event) {
	}

	/**
	 * The watchdog renewed a held lock only when less than a third of its lease, {@code leaseLeft},
	 * was left (Redis or the network was slow, or this JVM paused): the lock is still held, but came
	 * close to being lost. Called on Lockstep's event thread, like {@link #lost(LockLostEvent)}.
	 */
	default void renewedLate(String key, Duration leaseLeft) {
	}

	/** A guarded job's firing was skipped because another instance holds or ran it. */
	default void jobSkipped(String job, String reason) {
	}

	/** A guarded job ran on this instance for {@code took}; {@code succeeded} is false when it threw. */
	default void jobRan(String job, Duration took, boolean succeeded) {
	}

	/**
	 * A task of a serial queue started on this instance, {@code waited} after it was submitted
	 * (both by the Redis server's clock), on the worker's thread.
	 */
	default void taskStarted(String queue, Duration waited) {
	}

	/**
	 * A task's run on this instance ended after {@code ran}: {@code outcome} is {@code done},
	 * {@code retry} (it threw and will be retried), {@code dead} (it threw on its last attempt, or its
	 * payload could not be read), {@code released} (this instance stopped and gave it back) or
	 * {@code lost} (its lease ran out before it ended, so it may run again elsewhere).
	 */
	default void taskEnded(String queue, String outcome, Duration ran) {
	}

}
