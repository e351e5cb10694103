package dev.lockstep;

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

}
