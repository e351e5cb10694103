package dev.lockstep;

import org.jspecify.annotations.Nullable;

/** Redis could not be reached or failed while storing or reading a {@link SerialQueue}'s tasks. */
public class SerialQueueException extends RuntimeException {

	public SerialQueueException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
