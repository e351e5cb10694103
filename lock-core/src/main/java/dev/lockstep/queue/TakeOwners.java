package dev.lockstep.queue;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.internal.redis.ReplyWait;

/**
 * The owner ids of one queue's takes on this instance, one per take:
 * {@code <instance id>:<run>:<sequence>}, the run four random base-36 characters drawn at each
 * start, so that a restarted instance with the same id (its sequence counting from 1 again) never
 * reuses an owner id of its earlier run, and the instance id (which holds no ':') can be read back;
 * the takes of workers woken by a wake-up; and the giving back of takes whose task never began.
 * Neither give-back is awaited: if Redis cannot be reached, the tasks' leases run out as before.
 */
final class TakeOwners {

	private static final Logger logger = LoggerFactory.getLogger(TakeOwners.class);

	private static final AtomicLong SEQUENCE = new AtomicLong();

	private final String instanceId;

	private final QueueKeys keys;

	private final QueueScripts scripts;

	private volatile String prefix = "";

	TakeOwners(String instanceId, QueueKeys keys, QueueScripts scripts) {
		this.instanceId = instanceId;
		this.keys = keys;
		this.scripts = scripts;
	}

	/**
	 * A new run begins (the workers start). Tasks an earlier run of this instance id still holds
	 * (it stopped uncleanly) will not end: they go back at once, rather than after their leases,
	 * sent before this run's first take.
	 */
	void newRun(int maxAttempts) {
		StringBuilder run = new StringBuilder(this.instanceId).append(':');
		for (int i = 0; i < 4; i++) {
			run.append(Character.forDigit(ThreadLocalRandom.current().nextInt(36), 36));
		}
		this.prefix = run.append(':').toString();
		this.scripts.reclaim(this.keys, this.instanceId, this.prefix, maxAttempts).whenComplete((ids, error) -> {
			if (ids != null && !ids.isEmpty()) {
				logger.warn("Task(s) {} of queue '{}' were held by an earlier run of instance {} that stopped without "
						+ "ending them: given back (or buried after their last attempt)", ids, this.keys.queue(),
						this.instanceId);
			}
		});
	}

	/** The owner id of a new take in this run. */
	String next() {
		return this.prefix + SEQUENCE.incrementAndGet();
	}

	/**
	 * The take of a worker woken by a wake-up ({@link QueueScripts#wokenTake}): the task it started,
	 * or null when no group waited (another worker took it first) or the queue is paused. A reply
	 * lost is undone, as for any take, and thrown.
	 */
	QueueScripts.@Nullable Taken wokenTake(QueueSettings settings, ReplyWait replies)
			throws InterruptedException, ExecutionException, TimeoutException {
		String owner = next();
		try {
			QueueScripts.Taken taken = replies.get(this.scripts.wokenTake(this.keys, owner, settings));
			return (taken.task() != null) ? taken : null;
		}
		catch (InterruptedException | ExecutionException | TimeoutException ex) {
			undo(owner, "its worker never heard");
			throw ex;
		}
	}

	/**
	 * A take by {@code owner} whose task was never begun: its reply was lost (it may have reached
	 * Redis, or may yet, from the client's queue), or the worker stops. Undone on the same
	 * connection after it, so that its task goes back at once, its attempt not counted, rather
	 * than wait out a lease nobody renews.
	 * @param why why it was not begun, for the log
	 */
	void undo(String owner, String why) {
		this.scripts.untake(this.keys, owner).whenComplete((id, error) -> {
			if (id != null) {
				logger.info("Task {} of queue '{}' was taken but never begun ({}): given back, its attempt not counted", id,
						this.keys.queue(), why);
			}
		});
	}

}
