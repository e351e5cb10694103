package dev.lockstep;

import org.jspecify.annotations.Nullable;

/** The key expression of an annotated method failed or gave no key; the method did not run. */
public class LockKeyException extends LockException {

	public LockKeyException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
