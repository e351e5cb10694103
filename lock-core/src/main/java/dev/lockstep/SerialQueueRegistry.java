package dev.lockstep;

import java.time.Duration;
import java.util.List;

/**
 * The serial queues this instance runs, and any queue as Redis holds it now: the monitoring view
 * of a {@link SerialQueue}, beside {@link JobGuardRegistry} for jobs and {@link LockStateRegistry}
 * for locks. Lockstep's own serial queue implements it; the actuator endpoint reads queues through
 * it, and the console too (both change queues, a redrive, a discard or a pause, through
 * {@link SerialQueue}).
 */
public interface SerialQueueRegistry {

	/** The id this instance's workers write into the owners of the tasks they take. */
	String instanceId();

	/** The queues this instance runs tasks of, in the order they were registered. */
	List<String> listenedQueues();

	/** Whether {@code queue} has settings of its own, beside the defaults. */
	boolean hasOwnSettings(String queue);

	/** The settings {@code queue} runs with on this instance. */
	Settings settings(String queue);

	/** The counts of {@code queue}, read from Redis. */
	QueueStats stats(String queue);

	/**
	 * The busiest groups of {@code queue}, as far as they can be seen without a scan: the groups of
	 * up to {@code max} running tasks, of up to {@code max} tasks whose lease ran out (shown as not
	 * running) and up to {@code max} groups waiting for a worker, most tasks queued first.
	 */
	List<? extends Group> busiestGroups(String queue, int max);

	/** Up to {@code max} of the oldest dead tasks of {@code queue}. */
	List<SerialTask> deadLetters(String queue, int max);

	/**
	 * The retries waiting in {@code queue} and its oldest task not yet done, read without a scan:
	 * up to {@code maxGroups} groups of each kind (waiting for a worker, paused, waiting for a
	 * retry, running); {@link QueueBacklog#complete()} says whether that was every group.
	 * @throws UnsupportedOperationException unless the implementation can read it (Lockstep's own
	 * serial queue can)
	 */
	default QueueBacklog backlog(String queue, int maxGroups) {
		throw new UnsupportedOperationException(getClass().getName()
				+ " does not implement SerialQueueRegistry.backlog(queue, maxGroups): the backlog of queue '" + queue
				+ "' was not read");
	}

	/** How one queue's tasks are run. */
	interface Settings {

		/** The lease a running task holds, renewed while it runs. */
		Duration leaseTime();

		/** The attempts before a task goes to the dead letters. */
		int maxAttempts();

		/** The backoff before the first retry, doubled for each further one. */
		Duration retryBackoff();

		/** How long a deduplication id is remembered. */
		Duration deduplicationWindow();

	}

	/** One group of a queue. */
	interface Group {

		/** The group's key. */
		String group();

		/** Its tasks waiting (a running one not counted). */
		long queued();

		/** Whether one of its tasks runs now. */
		boolean running();

	}

}
