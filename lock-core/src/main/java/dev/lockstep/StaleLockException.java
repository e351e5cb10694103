package dev.lockstep;

import org.jspecify.annotations.Nullable;

/**
 * A write was refused because the protected resource has already seen a fencing token at least
 * as high as the writer's: a later holder of the lock has written, so this holder lost the lock
 * (a pause past its lease, a failover) before its write arrived. Nothing was written.
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
		super("Write to " + resource + " under lock '" + key + "' refused: its fencing token " + fencingToken
				+ " is not above " + ((storedToken != null) ? "the token " + storedToken : "the token")
				+ " stored there, so a later holder of the lock has written; this holder lost the lock before its "
				+ "write arrived and nothing was written");
		this.key = key;
		this.fencingToken = fencingToken;
		this.storedToken = storedToken;
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
