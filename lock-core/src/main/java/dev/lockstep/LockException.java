package dev.lockstep;

import org.jspecify.annotations.Nullable;

/** Base class of the exceptions Lockstep throws when it cannot give a caller a lock. */
public class LockException extends RuntimeException {

	public LockException(String message) {
		super(message);
	}

	public LockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
