package dev.lockstep;

import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Durable serial queues on Redis: tasks are submitted with a group key and stored in Redis, and the
 * {@link dev.lockstep.annotation.SerialQueueListener listeners} of every instance run them. The
 * tasks of one group run one at a time, in submission order, on whichever instance is free;
 * different groups run in parallel and are served in turn. A running task holds a lease its
 * instance renews; when the instance dies the task runs again (at-least-once delivery), before the
 * group's later tasks. A task whose listener throws is retried with backoff, up to the queue's
 * maximum attempts, and then moved to the dead letters, and its group goes on.
 *
 * <pre class="code">
 * String id = serialQueue.submit("imports", tenantId + ":" + entityCode, request);
 * </pre>
 */
public interface SerialQueue {

	/**
	 * Stores a task in Redis and returns its id once it is stored.
	 * @param queue the queue's name
	 * @param group the group the task belongs to: the group's tasks run one at a time, in order
	 * @param payload written as JSON with the application's Jackson mapper
	 * @return the new task's id
	 * @throws IllegalArgumentException if the payload cannot be written as JSON, or a name is blank
	 * @throws SerialQueueException if Redis cannot be reached or fails; when Redis did not answer in
	 * time, or the connection broke after the task was sent, it may have been stored all the same: a
	 * submit with a deduplication id is the one that can be sent again safely
	 */
	String submit(String queue, String group, Object payload);

	/**
	 * Like {@link #submit(String, String, Object)}, but a second submit with the same
	 * {@code deduplicationId} to the same queue within the deduplication window stores nothing and
	 * returns the first task's id.
	 */
	String submit(String queue, String group, Object payload, String deduplicationId);

	/**
	 * The task, while it is queued, running or dead, and for the deduplication window after it is
	 * done; empty when there is no such task (never submitted, or done longer ago).
	 */
	Optional<SerialTask> task(String queue, String taskId);

	/** How many tasks of the queue are queued, running and dead, and how many groups wait for a worker. */
	QueueStats stats(String queue);

	/** Up to {@code max} dead tasks of the queue, oldest first. */
	List<SerialTask> deadLetters(String queue, int max);

	/**
	 * Puts a dead task back at the head of its group's waiting tasks, with its attempts counted from
	 * zero again.
	 * @return true if the task was dead and is queued again, false if it is not a dead task
	 */
	boolean redrive(String queue, String taskId);

	/**
	 * Deletes a dead task for good, payload and all. Its deduplication id, if it had one, stays
	 * taken until its window ends, so the same message submitted again within it is not stored.
	 * @return true if the task was dead and is gone now, false if it is not a dead task (a queued,
	 * running or done task is never discarded)
	 * @throws UnsupportedOperationException from an implementation written before this method was
	 * added (its default), naming that implementation; Lockstep's own queue implements it
	 */
	default boolean discard(String queue, String taskId) {
		throw new UnsupportedOperationException(getClass().getName()
				+ " does not implement SerialQueue.discard(queue, taskId): dead task '" + taskId + "' of queue '"
				+ queue + "' was not discarded");
	}


	/**
	 * Pauses the whole queue ({@code group} null) or one group, on every instance: no worker starts
	 * a task of it until it is resumed; a task running now runs to its end. A paused group's tasks
	 * keep their order, and other groups go on. Lasts until resumed, also across restarts.
	 * @param queue the queue
	 * @param group the group, or null for the whole queue
	 * @return true if it was not paused before
	 * @throws UnsupportedOperationException from an implementation written before this method was
	 * added (its default); Lockstep's own queue implements it
	 */
	default boolean pause(String queue, @Nullable String group) {
		throw new UnsupportedOperationException(getClass().getName()
				+ " does not implement SerialQueue.pause(queue, group): queue '" + queue + "' was not paused");
	}

	/**
	 * Resumes a queue or group {@link #pause paused} before: its tasks start again, in order.
	 * @param queue the queue
	 * @param group the group, or null for the whole queue
	 * @return true if it was paused
	 * @throws UnsupportedOperationException from an implementation written before this method was
	 * added (its default); Lockstep's own queue implements it
	 */
	default boolean resume(String queue, @Nullable String group) {
		throw new UnsupportedOperationException(getClass().getName()
				+ " does not implement SerialQueue.resume(queue, group): queue '" + queue + "' was not resumed");
	}

	/**
	 * Whether the whole queue is paused.
	 * @param queue the queue
	 * @return false from an implementation written before pausing existed (its default)
	 */
	default boolean isPaused(String queue) {
		return false;
	}

	/**
	 * The queue's paused groups, sorted by name.
	 * @param queue the queue
	 * @return none from an implementation written before pausing existed (its default)
	 */
	default List<String> pausedGroups(String queue) {
		return List.of();
	}

}
