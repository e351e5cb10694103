package dev.lockstep;

import java.time.Duration;

/**
 * One acquisition of a lock. Closing it releases that acquisition; the lock itself frees when
 * the outermost acquisition of a reentrant thread is closed.
 */
public interface LockHandle extends AutoCloseable {

	/** The key the lock was acquired for, as passed to the {@link LockService}. */
	String key();

	/**
	 * A number strictly greater than the token of every earlier acquisition of this key; a
	 * protected resource that remembers the highest token it has seen can reject a stale holder.
	 */
	long fencingToken();

	/**
	 * Whether this acquisition still holds the lock, as far as this instance knows: {@code false}
	 * once closed, once the watchdog found the lock gone, or once its lease ran out unconfirmed.
	 */
	boolean isHeld();

	/**
	 * Releases this acquisition. The release is sent without waiting for Redis to answer; what
	 * this instance sends afterwards reaches Redis after it. Never throws: if Redis cannot be
	 * reached the lock frees itself when its lease ends. Closing twice does nothing.
	 */
	@Override
	void close();

	/**
	 * Sets the lease of this acquisition to {@code leaseTime} from now, longer or shorter than
	 * before, if Redis still has the lock under this acquisition's owner id and fencing token; the
	 * lease is measured on the Redis server's clock, as at acquisition. Only for a lock acquired
	 * with a fixed lease ({@link LockService#tryAcquire}): the watchdog owns the lease of the others.
	 * @param leaseTime the new lease, counted from now; positive
	 * @return {@code true} if the lock was still held and now ends after {@code leaseTime};
	 * {@code false} if this handle was closed or Redis no longer had the lock (nothing changed)
	 * @throws IllegalStateException if the lock's lease is renewed by the watchdog
	 * @throws UnsupportedOperationException if this handle's service cannot change a lease (the
	 * default)
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	default boolean changeLease(Duration leaseTime) {
		throw new UnsupportedOperationException("Lock '" + key() + "' (" + getClass().getName()
				+ ") cannot change its lease");
	}

	/**
	 * Closes this acquisition but leaves the lock taken in Redis for {@code keepFor} more (its lease
	 * set to {@code keepFor}, owner id and fencing token checked), after which it frees itself:
	 * nobody, this instance included, can take it before. For work that must keep others out for a
	 * while after it ends, as ShedLock's {@code lockAtLeastFor}. A zero {@code keepFor} is
	 * {@link #close()}. While other reentrant acquisitions of the lock are open, this one is closed
	 * and the lease left as it is. Never throws for Redis: if Redis cannot be reached, the lock
	 * frees itself when its current lease ends. Closing twice does nothing.
	 * @param keepFor how long the lock stays taken after this call; not negative
	 * @throws UnsupportedOperationException if this handle's service cannot change a lease (the
	 * default)
	 */
	default void closeKeeping(Duration keepFor) {
		throw new UnsupportedOperationException("Lock '" + key() + "' (" + getClass().getName()
				+ ") cannot be closed keeping its lease");
	}

}
