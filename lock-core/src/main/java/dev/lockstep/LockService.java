package dev.lockstep;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Mutual exclusion by key across every instance that shares one Redis.
 *
 * <p>Locks are reentrant per thread, fair (waiters are served in the order they queued in Redis),
 * expire on the Redis server's clock, and can only be released by their owner. A lock whose holder
 * dies frees itself within its lease.
 */
public interface LockService {

	/**
	 * Acquires the lock for {@code key}, waiting up to {@code waitTime}; its lease is renewed by
	 * the watchdog until the handle is closed.
	 * @throws LockNotAcquiredException if the lock is still held elsewhere after {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	LockHandle acquire(String key, Duration waitTime);

	/**
	 * Tries to acquire the lock for {@code key} within {@code waitTime}, with a fixed lease that
	 * is never renewed: the lock frees itself after {@code leaseTime} unless closed earlier.
	 * @return the handle, or empty if the lock is still held elsewhere after {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime);

	/**
	 * Runs {@code action} while holding the lock for {@code key} (watchdog lease) and returns its
	 * result; exceptions of the action pass through unchanged.
	 * @throws LockNotAcquiredException if the lock is still held elsewhere after {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	<T> T callLocked(String key, Duration waitTime, Callable<T> action) throws Exception;

	/**
	 * Runs {@code action} while holding the lock for {@code key} (watchdog lease).
	 * @throws LockNotAcquiredException if the lock is still held elsewhere after {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	void runLocked(String key, Duration waitTime, Runnable action);

}
