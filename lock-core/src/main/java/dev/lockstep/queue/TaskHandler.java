package dev.lockstep.queue;

import dev.lockstep.SerialTask;

/**
 * Runs one task of a queue on this instance: a {@code @SerialQueueListener} method, or one given to
 * {@link RedisSerialQueue#listen(String, int, TaskHandler, String)} by code that registers a listener
 * without the annotation.
 */
@FunctionalInterface
public interface TaskHandler {

	/**
	 * Runs the task; returning marks it done, throwing retries it or, after the last attempt, moves
	 * it to the dead letters. Throw {@link UnreadablePayloadException} when the payload cannot be
	 * read: the task goes to the dead letters at once.
	 */
	void handle(SerialTask task, String payloadJson) throws Exception;

}
