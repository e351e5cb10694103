package dev.lockstep;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Mutual exclusion by key across every instance that shares one Redis.
 *
 * <p>Locks are reentrant per thread, fair (waiters are served in the order they queued in Redis),
 * expire on the Redis server's clock, and can only be released by their owner. A lock whose holder
 * dies frees itself within its lease. Permits ({@link #acquirePermit}) let up to a given number of
 * callers of one key in at once, with the same guarantees.
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

	/**
	 * Takes one of {@code permits} permits of {@code key}, waiting up to {@code waitTime}: at most
	 * {@code permits} callers hold a permit of one key at once, across every instance. The handle
	 * is a lock's in all else: close, {@link LockHandle#isHeld()}, a fencing token above every
	 * earlier permit's of the key, a lease renewed by the watchdog while it is held (a holder that
	 * dies frees its permit within its lease), a {@link LockLostEvent} if it is lost. Waiters are
	 * served in the order they queued. Permits are not reentrant: each call takes a permit of its
	 * own. Each caller admits itself only while fewer than its own {@code permits} hold one, so
	 * callers that disagree (a rolling deploy changing the number) never let in more than the
	 * largest number, and once the old callers have left, no more than the new one. {@code 1} is
	 * {@link #acquire(String, Duration)}: the lock of {@code key}, whose holders are not counted
	 * with the permits of a larger number.
	 * @param key the key
	 * @param permits how many may hold a permit of {@code key} at once; at least 1
	 * @param waitTime how long to wait for a permit; {@code 0} means a single attempt
	 * @return the handle of the permit taken
	 * @throws IllegalArgumentException if {@code permits} is below 1
	 * @throws LockNotAcquiredException if all permits are still taken after {@code waitTime}
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 * @throws UnsupportedOperationException if {@code permits} is above 1 and this service has no
	 * permits (the default)
	 */
	default LockHandle acquirePermit(String key, int permits, Duration waitTime) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits of '" + key + "' must be at least 1: " + permits);
		}
		if (permits == 1) {
			return acquire(key, waitTime);
		}
		throw new UnsupportedOperationException("Lock service " + getClass().getName() + " has no permits; cannot take "
				+ "one of " + permits + " permits of '" + key + "'");
	}

	/**
	 * As {@link #acquirePermit(String, int, Duration)}, with a fixed lease that is never renewed:
	 * the permit frees itself after {@code leaseTime} unless closed earlier.
	 * @param key the key
	 * @param permits how many may hold a permit of {@code key} at once; at least 1
	 * @param waitTime how long to wait for a permit; {@code 0} means a single attempt
	 * @param leaseTime the permit's lease; positive
	 * @return the handle, or empty if all permits are still taken after {@code waitTime}
	 * @throws IllegalArgumentException if {@code permits} is below 1
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 * @throws UnsupportedOperationException if {@code permits} is above 1 and this service has no
	 * permits (the default)
	 */
	default Optional<LockHandle> tryAcquirePermit(String key, int permits, Duration waitTime, Duration leaseTime) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits of '" + key + "' must be at least 1: " + permits);
		}
		if (permits == 1) {
			return tryAcquire(key, waitTime, leaseTime);
		}
		throw new UnsupportedOperationException("Lock service " + getClass().getName() + " has no permits; cannot take "
				+ "one of " + permits + " permits of '" + key + "'");
	}

}
