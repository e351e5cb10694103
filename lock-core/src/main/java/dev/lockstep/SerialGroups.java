package dev.lockstep;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Runs actions of one group one at a time, in the order they joined the group's queue in Redis,
 * across every instance; actions of different groups run in parallel. The programmatic twin of
 * {@link dev.lockstep.annotation.SerialGroup}, which goes through the application's
 * {@code SerialGroups} bean.
 */
public interface SerialGroups {

	/** Groups are locks whose {@link LockService} key is this prefix followed by the group. */
	String LOCK_KEY_PREFIX = "group:";

	/**
	 * Waits up to {@code waitTime} for the group's turn and holds it until the handle is closed,
	 * renewing it meanwhile; the group's next call runs after that.
	 * @throws LockNotAcquiredException if the group's turn did not come within {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	LockHandle awaitTurn(String group, Duration waitTime);

	/**
	 * Waits up to {@code waitTime} for the group's turn and holds it for {@code leaseTime}, not
	 * renewed: the group's next call may start once the lease has run out even if this one has
	 * not closed the handle.
	 * @throws LockNotAcquiredException if the group's turn did not come within {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	LockHandle awaitTurn(String group, Duration waitTime, Duration leaseTime);

	/**
	 * Waits up to {@code waitTime} for the group's turn, runs {@code action} and returns its
	 * result; exceptions of the action pass through unchanged.
	 * @throws LockNotAcquiredException if the group's turn did not come within {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	default <T> T call(String group, Duration waitTime, Callable<T> action) throws Exception {
		try (LockHandle turn = awaitTurn(group, waitTime)) {
			return action.call();
		}
	}

}
