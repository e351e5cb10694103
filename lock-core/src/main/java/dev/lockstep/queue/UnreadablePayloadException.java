package dev.lockstep.queue;

/** A task's payload cannot be read as the listener's parameter type: retrying cannot help. */
public class UnreadablePayloadException extends RuntimeException {

	public UnreadablePayloadException(String message, Throwable cause) {
		super(message, cause);
	}

}
