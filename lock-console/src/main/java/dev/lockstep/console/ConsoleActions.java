package dev.lockstep.console;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.LockKeyException;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.LogText;

/**
 * What an operator may do from the console; each action is logged (logger
 * {@code dev.lockstep.console.ConsoleActions}, INFO) with the user who did it and what came of it.
 * A request the action cannot take (a queue the cluster does not know, a job no live instance
 * guards, a value Lockstep refuses) throws {@link IllegalArgumentException}, which the console
 * answers with 400.
 */
final class ConsoleActions {

	private static final Logger logger = LoggerFactory.getLogger(ConsoleActions.class);

	private static final int GROUP_BATCH = 1000;

	private final InstanceRecords records;

	private final @Nullable LockStateRegistry locks;

	private final @Nullable SerialQueue queues;

	private final @Nullable SerialQueueRegistry queueViews;

	private final String instanceId;

	private final JobTriggerRequests requests;

	ConsoleActions(InstanceRecords records, String instanceId, @Nullable LockStateRegistry locks,
			@Nullable SerialQueue queues, @Nullable SerialQueueRegistry queueViews, JobTriggerRequests requests) {
		this.records = records;
		this.instanceId = instanceId;
		this.locks = locks;
		this.queues = queues;
		this.queueViews = queueViews;
		this.requests = requests;
	}

	Result redrive(String user, String queue, String taskId) {
		return logged(user, "redrive task '" + taskId + "' of queue '" + queue + "'",
				() -> queues(queue).redrive(queue, taskId) ? Result.done("redriven") : Result.refused("not a dead task"));
	}

	Result discard(String user, String queue, String taskId) {
		return logged(user, "discard task '" + taskId + "' of queue '" + queue + "'",
				() -> queues(queue).discard(queue, taskId) ? Result.done("discarded") : Result.refused("not a dead task"));
	}

	/** Redrives or discards every dead task of {@code group} (up to a thousand at a time). */
	Result allOfGroup(String user, String queue, String group, boolean redrive) {
		return logged(user, (redrive ? "redrive" : "discard") + " the dead tasks of group '" + group + "' of queue '" + queue + "'", () -> {
			SerialQueue service = queues(queue);
			List<SerialTask> dead = service.deadLetters(queue, GROUP_BATCH).stream().filter((task) -> task.group().equals(group)).toList();
			long count = dead.stream().filter((task) -> redrive ? service.redrive(queue, task.id()) : service.discard(queue, task.id())).count();
			return Result.done(count + " task(s) " + (redrive ? "redriven" : "discarded"));
		});
	}

	Result pause(String user, String queue, @Nullable String group, boolean pause) {
		String what = (group != null) ? "group '" + group + "' of queue '" + queue + "'" : "queue '" + queue + "'";
		return logged(user, (pause ? "pause " : "resume ") + what, () -> {
			SerialQueue service = queues(queue);
			boolean changed = pause ? service.pause(queue, group) : service.resume(queue, group);
			return changed ? Result.done(pause ? "paused" : "resumed") : Result.refused(pause ? "paused already" : "not paused");
		});
	}

	/**
	 * Asks for a run of {@code job} now: the first live instance that guards it to see the request
	 * (at its next heartbeat) calls it through the job guard, once (see {@link JobTriggerRequests}).
	 * A job no live instance guards is refused as a bad request, as an unknown queue is: nothing
	 * could take the request.
	 */
	Result trigger(String user, String job) {
		return logged(user, "run job '" + job + "' now", () -> {
			List<InstanceRecords.InstanceRecord> alive = this.records.all().stream().filter(InstanceRecords.InstanceRecord::alive).toList();
			List<String> runners = alive.stream().filter((record) -> record.runnable().contains(job)).map(InstanceRecords.InstanceRecord::id).toList();
			if (runners.isEmpty()) {
				if (alive.stream().noneMatch((record) -> record.jobs().contains(job))) {
					throw new IllegalArgumentException("The cluster knows no job to run by that name (parameter 'job'): "
							+ "no live instance guards job '" + LogText.of(job) + "'; nothing was asked");
				}
				return Result.refused("job '" + job + "' takes arguments (or has no bean to call) on every instance that guards it");
			}
			String id = this.requests.ask(job, user, this.instanceId);
			return Result.done("asked (request " + id + "): the first of " + String.join(", ", runners)
					+ " to see it runs it once, through its guard, within a heartbeat; see the job's requests");
		});
	}

	/** Releases {@code key} held by {@code holder} under {@code token}, only once no heartbeat shows that holder alive. */
	Result release(String user, String key, String holder, long token) {
		return logged(user, "release lock '" + key + "' held by " + holder + " (token " + token + ")", () -> {
			LockStateRegistry service = this.locks;
			if (service == null) {
				return Result.refused("no Lockstep lock service here");
			}
			if (this.records.isAlive(holder)) {
				return Result.refused("instance " + holder + " is alive (its heartbeat is live): it releases its own locks");
			}
			return service.releaseHeldBy(key, holder, token) ? Result.done("released")
					: Result.refused("no longer held by " + holder + " under token " + token);
		});
	}

	/**
	 * The serial queue, once {@code queue} is one the cluster knows: this instance or a live one runs
	 * its tasks, or it has settings of its own, tasks or a pause. A typo is refused rather than act on
	 * a queue nobody runs (a pause would last for good, on a queue the page never shows).
	 */
	private SerialQueue queues(String queue) {
		SerialQueue service = this.queues;
		if (service == null) {
			throw new IllegalStateException("no Lockstep serial queue here");
		}
		SerialQueueRegistry views = this.queueViews;
		boolean known = (views != null && (views.listenedQueues().contains(queue) || views.hasOwnSettings(queue)))
				|| this.records.all().stream().anyMatch((record) -> record.alive() && record.queues().contains(queue))
				|| !service.stats(queue).equals(new QueueStats(0, 0, 0, 0)) || service.isPaused(queue)
				|| !service.pausedGroups(queue).isEmpty();
		if (!known) {
			throw new IllegalArgumentException("No queue '" + queue + "' in the cluster (parameter 'queue'): no live instance "
					+ "runs its tasks, and it has no settings of its own, no task and no pause");
		}
		return service;
	}

	private static Result logged(String user, String action, Supplier<Result> run) {
		Result result;
		try {
			result = run.get();
		}
		catch (IllegalArgumentException | LockKeyException ex) {
			// a bad request (a value Lockstep refuses, such as a lock key too long), answered with 400
			logger.info("Lockstep console: {} asked to {}: refused, {}", LogText.of(user), LogText.of(action), LogText.of(ex.getMessage()));
			throw (ex instanceof IllegalArgumentException bad) ? bad : new IllegalArgumentException(ex.getMessage(), ex);
		}
		catch (RuntimeException ex) {
			logger.warn("Lockstep console: {} asked to {}: failed: {}", LogText.of(user), LogText.of(action), LogText.of(ex.toString()));
			return new Result(false, ex.getMessage() != null ? ex.getMessage() : ex.toString());
		}
		// the names come from the request: escaped, so that a value cannot forge a line of this log
		logger.info("Lockstep console: {} asked to {}: {}{}", LogText.of(user), LogText.of(action), result.done() ? "" : "refused, ",
				LogText.of(result.message()));
		return result;
	}

	/**
	 * What an action did.
	 * @param done whether it changed what it was asked to
	 * @param message what happened, for the operator
	 */
	record Result(boolean done, String message) {

		static Result done(String message) {
			return new Result(true, message);
		}

		static Result refused(String message) {
			return new Result(false, message);
		}

	}

}
