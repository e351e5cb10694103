package dev.lockstep.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;

import dev.lockstep.LockListener;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.LogText;
import dev.lockstep.internal.redis.ReplyWait;

/**
 * The workers of one queue on this instance: {@code concurrency} threads that each take a task
 * (queue-take.lua), run it with the handler and end it (finish, fail or release, sent again while
 * Redis fails), and the shutdown that gives back what still runs. The running tasks' leases are
 * renewed by {@link LeaseRenewals}, idle workers wait in {@link IdleWorkers}, and owner ids, the
 * takes of woken workers and the undoing of takes never begun are {@link TakeOwners}'.
 */
final class QueueWorkers {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkers.class);

	/** Wait before a worker tries again after Redis failed. */
	private static final Duration REDIS_RETRY = Duration.ofSeconds(1);

	private final QueueKeys keys;

	private final QueueSettings settings;

	private final int concurrency;

	private final TaskHandler handler;

	private final String description;

	private final QueueScripts scripts;

	private final Duration commandTimeout;

	/** Waits for a reply on a worker's thread, at most the command timeout. */
	private final ReplyWait replies;

	private final String instanceId;

	private final LockListener listener;

	private final IdleWorkers idle;

	/** Where Redis is tried, in words ({@link dev.lockstep.internal.redis.RedisAddress}), for messages. */
	private final String redis;

	/** The running tasks and their leases' renewals. */
	private final LeaseRenewals running;

	private final List<Thread> threads = new ArrayList<>();

	private final TakeOwners owners;

	/**
	 * The workers' current run: one per {@link #start}, stopped by {@link #refuseNew()}. Each worker
	 * thread keeps the run it was started for, so a thread that outlived the shutdown (a listener that
	 * ignored the interrupt) never takes part in a later run: it sees its own run stopped for good.
	 */
	private volatile Run run = Run.stopped();

	/** Which takes handle the leases and retries that fell due. */
	private final DueSweeps sweeps;

	private volatile boolean redisFailing;

	private @Nullable ScheduledFuture<?> renewals;

	QueueWorkers(QueueKeys keys, QueueSettings settings, int concurrency, TaskHandler handler, String description,
			QueueScripts scripts, Duration commandTimeout, String instanceId, LockListener listener, String redis) {
		this.keys = keys;
		this.settings = settings;
		this.concurrency = concurrency;
		this.handler = handler;
		this.description = description;
		this.scripts = scripts;
		this.commandTimeout = commandTimeout;
		this.instanceId = instanceId;
		this.listener = listener;
		this.redis = redis;
		this.replies = new ReplyWait(commandTimeout, redis);
		this.running = new LeaseRenewals(keys, settings, scripts, commandTimeout);
		this.idle = new IdleWorkers(concurrency, instanceId, settings.leaseTime());
		this.sweeps = new DueSweeps(settings.leaseTime());
		this.owners = new TakeOwners(instanceId, keys, scripts);
	}

	QueueKeys keys() {
		return this.keys;
	}

	String description() {
		return this.description;
	}

	/** Starts the workers; again after {@link #refuseNew()} and {@link #awaitStopped}, when the context starts again. */
	synchronized void start(ScheduledExecutorService timer) {
		Run run = new Run();
		this.run = run;
		this.threads.clear();
		this.idle.reset(timer);
		this.owners.newRun(this.settings.maxAttempts());
		long every = Math.max(1, this.settings.leaseTime().toMillis() / 3);
		this.renewals = timer.scheduleWithFixedDelay(this.running::renew, every, every, TimeUnit.MILLISECONDS);
		for (int i = 0; i < this.concurrency; i++) {
			this.threads.add(DaemonThreads.start("lockstep-queue-" + this.keys.queue() + "-" + (i + 1), () -> work(run)));
		}
	}

	private void work(Run run) {
		while (true) {
			try {
				workUntilStopped(run);
				return;
			}
			catch (RuntimeException | Error ex) {
				// an unexpected failure (a bug, an out-of-memory) must not leave the queue a worker short
				logger.error("A worker of queue '{}' failed; it goes on", this.keys.queue(), ex);
				if (run.stopping) {
					return;
				}
				sleep(REDIS_RETRY);
			}
		}
	}

	private void workUntilStopped(Run run) {
		QueueScripts.Taken next = null;
		while (!run.stopping || (next != null && next.task() != null)) {
			QueueScripts.Taken taken = next;
			next = null;
			if (taken == null) {
				String owner = this.owners.next();
				try {
					taken = this.replies.get(this.scripts.take(this.keys, owner, this.settings, this.sweeps.due()));
					if (this.redisFailing) {
						this.redisFailing = false;
						logger.info("Queue '{}' reaches Redis again; its workers take tasks", this.keys.queue());
					}
				}
				catch (InterruptedException ex) {
					this.owners.undo(owner, "its worker never heard");
					continue;
				}
				catch (ExecutionException | TimeoutException ex) {
					this.owners.undo(owner, "its worker never heard");
					if (!this.redisFailing) {
						this.redisFailing = true;
						logger.warn("Queue '{}' cannot take tasks, {} failed: {}; trying again every {}", this.keys.queue(),
								this.redis, message(ex), DurationText.of(REDIS_RETRY));
					}
					this.idle.awaitRetry(REDIS_RETRY);
					continue;
				}
			}
			QueueScripts.Started task = taken.task();
			if (task == null) {
				if (!run.stopping) {
					next = this.idle.awaitWork(taken.nextDueMillis(), () -> run.stopping,
							() -> this.owners.wokenTake(this.settings, this.replies));
				}
			}
			else if (run.stopping) {
				// it never ran: it goes back as it was, its attempt not counted
				this.owners.undo(task.owner(), this.instanceId + " stops");
			}
			else {
				next = run(task, run);
			}
		}
	}

	/** Runs the task and ends it; the worker's next task when the finish took one in the same step, else null. */
	private QueueScripts.@Nullable Taken run(QueueScripts.Started task, Run run) {
		RunningTask entry = this.running.started(task.owner(), task);
		long start = System.nanoTime();
		Throwable thrown = null;
		try {
			// inside: even what a listener lets through (running out of memory) ends the task, not strands it
			this.listener.taskStarted(this.keys.queue(), Duration.ofMillis(Math.max(0, task.startedMillis() - task.submittedMillis())));
			this.handler.handle(new SerialTask(task.id(), task.queue(), task.group(), SerialTask.State.RUNNING, task.attempt(),
					Instant.ofEpochMilli(task.submittedMillis()), task.lastError().isEmpty() ? null : task.lastError(),
					task.fencingToken(), entry), task.payload());
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		Throwable failure = thrown;
		boolean interrupted = Thread.interrupted();
		entry.ending();
		Duration ran = Duration.ofNanos(System.nanoTime() - start);
		try {
			if (failure == null) {
				return finish(task, ran, run);
			}
			else if (run.stopping && (interrupted || failure instanceof InterruptedException || entry.interruptedToStop())) {
				// also when the listener turned the interrupt into an exception of its own: the stop caused it
				boolean last = task.attempt() >= this.settings.maxAttempts();
				end(task, last ? "dead" : "released", ran, () -> this.scripts.release(this.keys, task.id(), task.owner(),
						"given back: " + this.instanceId + " stopped while it ran", this.settings.maxAttempts()));
			}
			else if (failure instanceof UnreadablePayloadException unreadable) {
				logger.warn("Task {} of queue '{}' goes to the dead letters: {}", task.id(), this.keys.queue(),
						unreadable.getMessage());
				end(task, "dead", ran, () -> this.scripts.fail(this.keys, task.id(), task.owner(), errorText(unreadable), 0,
						Duration.ZERO));
			}
			else {
				boolean last = task.attempt() >= this.settings.maxAttempts();
				Duration backoff = this.settings.backoffAfter(task.attempt());
				logger.warn("Task {} of queue '{}' (group '{}') failed on attempt {} of {}{}", task.id(),
						LogText.of(this.keys.queue()), LogText.of(task.group()), task.attempt(), this.settings.maxAttempts(),
						last ? "; it goes to the dead letters" : "; retried in " + DurationText.of(backoff), failure);
				end(task, last ? "dead" : "retry", ran, () -> this.scripts.fail(this.keys, task.id(), task.owner(),
						errorText(failure), this.settings.maxAttempts(), backoff));
			}
		}
		finally {
			this.running.ended(task.owner());
		}
		return null;
	}

	/**
	 * Finishes the task and takes the worker's next one in the same round trip; if Redis fails, the
	 * finish alone is sent again as {@link #end} does.
	 */
	private QueueScripts.@Nullable Taken finish(QueueScripts.Started task, Duration ran, Run run) {
		String nextOwner = run.stopping ? null : this.owners.next();
		try {
			QueueScripts.Finished finished = this.replies.get(this.scripts.finishAndTake(this.keys, task.id(), task.owner(),
					this.settings.deduplicationWindow(), nextOwner, this.settings, nextOwner != null && this.sweeps.due()));
			if (!finished.ended()) {
				logger.warn("Task {} of queue '{}' ended (done) after its lease ran out: it may have run again elsewhere",
						task.id(), this.keys.queue());
				this.listener.taskEnded(this.keys.queue(), "lost", ran);
				// nothing was taken with it: the worker takes on its own next
				return null;
			}
			this.listener.taskEnded(this.keys.queue(), "done", ran);
			return finished.next();
		}
		catch (InterruptedException | ExecutionException | TimeoutException ex) {
			// the reply is lost or Redis failed: a lost reply may have taken a task, which goes back; the finish
			// alone is sent again
			if (nextOwner != null) {
				this.owners.undo(nextOwner, "its worker never heard");
			}
			end(task, "done", ran, () -> this.scripts.finish(this.keys, task.id(), task.owner(),
					this.settings.deduplicationWindow()));
			return null;
		}
	}

	private void end(QueueScripts.Started task, String outcome, Supplier<CompletableFuture<Long>> call) {
		end(task, outcome, Duration.ZERO, call);
	}

	/**
	 * Sends how the task ended, again every second while Redis fails, for as long as its lease would
	 * last (the renewals go on meanwhile); after that the lease runs out and the task runs again.
	 */
	private void end(QueueScripts.Started task, String outcome, Duration ran, Supplier<CompletableFuture<Long>> call) {
		long giveUp = System.nanoTime() + this.settings.leaseTime().toNanos();
		while (true) {
			try {
				long result = this.replies.get(call.get());
				if (result == 0L) {
					logger.warn("Task {} of queue '{}' ended ({}) after its lease ran out: it may have run again elsewhere",
							task.id(), this.keys.queue(), outcome);
					this.listener.taskEnded(this.keys.queue(), "lost", ran);
				}
				else {
					this.listener.taskEnded(this.keys.queue(), outcome, ran);
				}
				return;
			}
			catch (InterruptedException ex) {
				// stopping: the outcome is still sent
			}
			catch (ExecutionException | TimeoutException ex) {
				if (System.nanoTime() - giveUp > 0) {
					logger.warn("Task {} of queue '{}' ended ({}), but Redis could not be told: {}; it runs again after its lease",
							task.id(), this.keys.queue(), outcome, message(ex));
					this.listener.taskEnded(this.keys.queue(), "lost", ran);
					return;
				}
				sleep(REDIS_RETRY);
			}
		}
	}

	/** A message on the queue's channel (see {@link IdleWorkers#heard}). */
	void heard(Message message) {
		this.idle.heard(message.getBody());
	}

	/** Redis confirmed the queue channel's SUBSCRIBE (see {@link IdleWorkers#subscribed}); never blocks. */
	void subscribed() {
		this.idle.subscribed();
	}

	/** For tests: how long a wake-up told to another instance first waits for its take. */
	void hedgeDelay(Duration delay) {
		this.idle.hedgeDelay(delay);
	}

	/** From now on no task is taken; idle workers wake and end. */
	void refuseNew() {
		this.run.stopping = true;
		this.idle.wakeAll();
	}

	/**
	 * Waits until the workers have ended, up to {@code deadline} ({@link System#nanoTime()}); then
	 * interrupts the ones still running a task and gives their tasks back.
	 */
	void awaitStopped(long deadline) {
		for (Thread thread : this.threads) {
			join(thread, deadline);
		}
		if (this.running.isEmpty()) {
			cancelRenewals();
			return;
		}
		this.running.forEach((owner, entry) -> entry.interruptToStop());
		long afterInterrupt = System.nanoTime() + Math.min(this.commandTimeout.toNanos(), Duration.ofSeconds(2).toNanos());
		for (Thread thread : this.threads) {
			join(thread, afterInterrupt);
		}
		this.running.forEach((owner, entry) -> {
			// before the release reaches Redis: another attempt may begin at once, the stuck one is not current
			entry.lost();
			try {
				long released = this.replies.get(this.scripts.release(this.keys, entry.taskId(), owner, "given back: " + this.instanceId
						+ " stopped and the task did not end within the shutdown timeout", this.settings.maxAttempts()));
				logger.warn("Task {} of queue '{}' still runs after the shutdown timeout; {}", entry.taskId(), this.keys.queue(),
						(released == 2) ? "it was its last attempt: it goes to the dead letters" : "given back to run elsewhere");
			}
			catch (InterruptedException | ExecutionException | TimeoutException ex) {
				logger.warn("Task {} of queue '{}' could not be given back ({}); it runs again after its lease",
						entry.taskId(), this.keys.queue(), message(ex));
			}
		});
		cancelRenewals();
	}

	private void cancelRenewals() {
		if (this.renewals != null) {
			this.renewals.cancel(false);
		}
	}

	private static void join(Thread thread, long deadline) {
		long left = deadline - System.nanoTime();
		try {
			if (left > 0) {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			// stopping: the caller decides
		}
	}

	private static String errorText(Throwable failure) {
		String message = failure.getMessage();
		String text = failure.getClass().getName() + ((message != null) ? ": " + message : "");
		return (text.length() > 2000) ? text.substring(0, 2000) : text;
	}

	static String message(Throwable error) {
		Throwable cause = (error instanceof ExecutionException && error.getCause() != null) ? error.getCause() : error;
		return (cause instanceof TimeoutException) ? "no reply in time" : String.valueOf(cause.getMessage());
	}

	/** One run of the workers, from a {@link #start} to the next {@link #refuseNew()}. */
	private static final class Run {

		private volatile boolean stopping;

		/** Before the first start: nothing runs. */
		static Run stopped() {
			Run run = new Run();
			run.stopping = true;
			return run;
		}

	}

}
