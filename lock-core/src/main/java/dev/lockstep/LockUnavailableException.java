package dev.lockstep;

import org.jspecify.annotations.Nullable;

/** Redis could not be reached or failed, so the lock was not taken (Lockstep fails closed). */
public class LockUnavailableException extends LockException {

	public LockUnavailableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
