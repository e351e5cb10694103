package dev.lockstep.queue;

/**
 * A task's payload cannot be read as the listener's parameter type: retrying cannot help, so the
 * task goes to the dead letters at once, with this message as its error. Thrown for a
 * {@code @SerialQueueListener} method's parameter; a {@link TaskHandler} throws it for the same.
 */
public class UnreadablePayloadException extends RuntimeException {

	/**
	 * A payload that cannot be read.
	 * @param message what could not be read as what, for the dead task's error
	 * @param cause the reader's failure
	 */
	public UnreadablePayloadException(String message, Throwable cause) {
		super(message, cause);
	}

}
