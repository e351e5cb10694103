package dev.lockstep;

import org.jspecify.annotations.Nullable;

/** The lock stayed held elsewhere for the whole wait, or the wait was interrupted. */
public class LockNotAcquiredException extends LockException {

	public LockNotAcquiredException(String message) {
		super(message);
	}

	public LockNotAcquiredException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
