package dev.lockstep;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Runs actions of one group one at a time, in the order they joined the group's queue in Redis,
 * across every instance; actions of different groups run in parallel. The programmatic twin of
 * {@link dev.lockstep.annotation.SerialGroup}.
 */
public interface SerialGroups {

	/** Groups are locks whose {@link LockService} key is this prefix followed by the group. */
	String LOCK_KEY_PREFIX = "group:";

	/**
	 * Waits up to {@code waitTime} for the group's turn, runs {@code action} and returns its
	 * result; exceptions of the action pass through unchanged.
	 * @throws LockNotAcquiredException if the group's turn did not come within {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	<T> T call(String group, Duration waitTime, Callable<T> action) throws Exception;

}
