package dev.lockstep;

import org.jspecify.annotations.Nullable;

/**
 * A write was refused because the protected resource has already seen a fencing token at least
 * as high as the writer's: a later holder of the lock has written, so this holder lost the lock
 * (a pause past its lease, a failover) before its write arrived; or because the writer's handle
 * already knew it no longer held the lock ({@link #notHeld}). Nothing was written.
 */
public class StaleLockException extends LockException {

	private final String key;

	private final long fencingToken;

	private final @Nullable Long storedToken;

	/**
	 * @param key the lock's key
	 * @param fencingToken the writer's token
	 * @param storedToken the token the resource holds, or null when it is not known
	 * @param resource what refused the write, for the message (a table, an entity)
	 */
	public StaleLockException(String key, long fencingToken, @Nullable Long storedToken, String resource) {
		this("Write to " + resource + " under lock '" + key + "' refused: its fencing token " + fencingToken
				+ " is not above " + ((storedToken != null) ? "the token " + storedToken : "the token")
				+ " stored there, so a later holder of the lock has written; this holder lost the lock before its "
				+ "write arrived and nothing was written", key, fencingToken, storedToken);
	}

	private StaleLockException(String message, String key, long fencingToken, @Nullable Long storedToken) {
		super(message);
		this.key = key;
		this.fencingToken = fencingToken;
		this.storedToken = storedToken;
	}

	/**
	 * A write refused before it was sent, because the writer's handle already knew that it no longer
	 * held the lock ({@link LockHandle#isHeld()} false: closed, or lost). Its stored token is not known.
	 * @param key the lock's key
	 * @param fencingToken the writer's token
	 * @param resource what the write was for, for the message (a table, an entity)
	 * @return the exception, to throw
	 */
	public static StaleLockException notHeld(String key, long fencingToken, String resource) {
		return new StaleLockException("Write to " + resource + " under lock '" + key + "' refused before it was sent: "
				+ "the handle of fencing token " + fencingToken + " no longer holds the lock (it was closed, or lost: "
				+ "the watchdog found it gone or its lease ran out unconfirmed); nothing was written", key, fencingToken,
				null);
	}

	/** The key of the lock the writer held. */
	public String getKey() {
		return this.key;
	}

	/** The writer's fencing token. */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/** The token the resource holds, at least as high as the writer's; null when not known. */
	public @Nullable Long getStoredToken() {
		return this.storedToken;
	}

}
