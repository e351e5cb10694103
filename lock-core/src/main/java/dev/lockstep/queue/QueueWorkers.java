package dev.lockstep.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.LockListener;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.internal.DurationText;

/**
 * The workers of one queue on this instance: {@code concurrency} threads that each take a task
 * (queue-take.lua), run it with the handler and end it (finish, fail or release), and the renewal of
 * the running tasks' leases every third of the lease. An idle worker waits for a wake-up, for the
 * moment the next lease or retry falls due, or at most {@link #IDLE_LOOK}.
 */
final class QueueWorkers {

	private static final Logger logger = LoggerFactory.getLogger(QueueWorkers.class);

	/** Longest wait of an idle worker before it looks for work on its own (a wake-up lost in a reconnect). */
	static final Duration IDLE_LOOK = Duration.ofSeconds(30);

	/** Wait before a worker tries again after Redis failed. */
	private static final Duration REDIS_RETRY = Duration.ofSeconds(1);

	private static final AtomicLong SEQUENCE = new AtomicLong();

	private final QueueKeys keys;

	private final QueueSettings settings;

	private final int concurrency;

	private final TaskHandler handler;

	private final String description;

	private final QueueScripts scripts;

	private final Duration commandTimeout;

	private final String instanceId;

	private final LockListener listener;

	private final Semaphore wakeUps = new Semaphore(0);

	/** Where Redis is tried, in words ({@link dev.lockstep.redis.RedisAddress}), for messages. */
	private final String redis;

	/** Running tasks by the owner id of their take (unique per take): the task's id and the worker's thread. */
	private final Map<String, Running> running = new ConcurrentHashMap<>();

	private final List<Thread> threads = new ArrayList<>();

	private final AtomicLong timedWakeAt = new AtomicLong(Long.MAX_VALUE);

	/**
	 * Owner ids of this run's takes start with it: {@code <instance id>:<run>:}, the run four random
	 * base-36 characters drawn at each start, so that a restarted instance with the same id (its
	 * sequence counting from 1 again) never reuses an owner id of its earlier run.
	 */
	private volatile String ownerPrefix = "";

	private volatile boolean stopping;

	private volatile boolean redisFailing;

	private @Nullable ScheduledExecutorService timer;

	private @Nullable ScheduledFuture<?> renewals;

	QueueWorkers(QueueKeys keys, QueueSettings settings, int concurrency, TaskHandler handler, String description,
			QueueScripts scripts, Duration commandTimeout, String instanceId, LockListener listener, String redis) {
		this.redis = redis;
		this.keys = keys;
		this.settings = settings;
		this.concurrency = concurrency;
		this.handler = handler;
		this.description = description;
		this.scripts = scripts;
		this.commandTimeout = commandTimeout;
		this.instanceId = instanceId;
		this.listener = listener;
	}

	QueueKeys keys() {
		return this.keys;
	}

	String description() {
		return this.description;
	}

	/** Starts the workers; again after {@link #refuseNew()} and {@link #awaitStopped}, when the context starts again. */
	synchronized void start(ScheduledExecutorService timer) {
		this.stopping = false;
		this.threads.clear();
		this.wakeUps.drainPermits();
		this.timedWakeAt.set(Long.MAX_VALUE);
		this.timer = timer;
		this.ownerPrefix = this.instanceId + ":" + newRun() + ":";
		reclaim();
		long every = Math.max(1, this.settings.leaseTime().toMillis() / 3);
		this.renewals = timer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
		for (int i = 0; i < this.concurrency; i++) {
			this.threads.add(DaemonThreads.start("lockstep-queue-" + this.keys.queue() + "-" + (i + 1), this::work));
		}
	}

	/**
	 * A group's next task may start: wakes one idle worker, or the next worker to go idle (a worker
	 * between an empty take and its wait must not miss it), holding at most one wake-up per worker.
	 */
	void wake() {
		if (this.wakeUps.availablePermits() < this.concurrency) {
			this.wakeUps.release();
		}
	}

	private void work() {
		while (true) {
			try {
				workUntilStopped();
				return;
			}
			catch (RuntimeException | Error ex) {
				// an unexpected failure (a bug, an out-of-memory) must not leave the queue a worker short
				logger.error("A worker of queue '{}' failed; it goes on", this.keys.queue(), ex);
				if (this.stopping) {
					return;
				}
				sleep(REDIS_RETRY);
			}
		}
	}

	private void workUntilStopped() {
		QueueScripts.Taken next = null;
		while (!this.stopping || (next != null && next.task() != null)) {
			QueueScripts.Taken taken = next;
			next = null;
			if (taken == null) {
				String owner = newOwner();
				try {
					taken = await(this.scripts.take(this.keys, owner, this.settings));
					if (this.redisFailing) {
						this.redisFailing = false;
						logger.info("Queue '{}' reaches Redis again; its workers take tasks", this.keys.queue());
					}
				}
				catch (InterruptedException ex) {
					untake(owner);
					continue;
				}
				catch (ExecutionException | TimeoutException ex) {
					untake(owner);
					if (!this.redisFailing) {
						this.redisFailing = true;
						logger.warn("Queue '{}' cannot take tasks, {} failed: {}; trying again every {}", this.keys.queue(), this.redis,
								message(ex), DurationText.of(REDIS_RETRY));
					}
					idle(REDIS_RETRY.toMillis());
					continue;
				}
			}
			QueueScripts.Started task = taken.task();
			if (task == null) {
				if (!this.stopping) {
					idle(taken.nextDueMillis());
				}
			}
			else if (this.stopping) {
				// it never ran: it goes back as it was, its attempt not counted
				untake(task.owner());
			}
			else {
				next = run(task);
			}
		}
	}

	/**
	 * A take by {@code owner} got no reply, but may have reached Redis (or may yet, from the
	 * client's queue): undo it, on the same connection after it, so that its task goes back at
	 * once, its attempt not counted, rather than wait out a lease nobody renews. Not awaited; if
	 * Redis cannot be reached, the lease runs out as before.
	 */
	private void untake(String owner) {
		this.scripts.untake(this.keys, owner).whenComplete((id, error) -> {
			if (id != null) {
				logger.info("Task {} of queue '{}' was taken but never begun ({}): given back, its attempt not counted",
						id, this.keys.queue(), this.stopping ? this.instanceId + " stops" : "its worker never heard");
			}
		});
	}

	private String newOwner() {
		return this.ownerPrefix + SEQUENCE.incrementAndGet();
	}

	private static String newRun() {
		StringBuilder run = new StringBuilder(4);
		for (int i = 0; i < 4; i++) {
			run.append(Character.forDigit(ThreadLocalRandom.current().nextInt(36), 36));
		}
		return run.toString();
	}

	/**
	 * Tasks an earlier run of this instance id still holds (it stopped uncleanly) will not end: they
	 * go back at once, rather than after their leases, sent before this run's first take. Not
	 * awaited; if Redis cannot be reached, their leases run out as before.
	 */
	private void reclaim() {
		this.scripts.reclaim(this.keys, this.instanceId, this.ownerPrefix, this.settings.maxAttempts())
			.whenComplete((ids, error) -> {
				if (ids != null && !ids.isEmpty()) {
					logger.warn("Task(s) {} of queue '{}' were held by an earlier run of instance {} that stopped without "
							+ "ending them: given back (or buried after their last attempt)", ids, this.keys.queue(),
							this.instanceId);
				}
			});
	}

	/** Waits for a wake-up, for {@code dueMillis} (when a lease or retry falls due; -1: none) or {@link #IDLE_LOOK}. */
	private void idle(long dueMillis) {
		long waitMillis = IDLE_LOOK.toMillis();
		if (dueMillis >= 0) {
			scheduleWake(dueMillis);
		}
		try {
			this.wakeUps.tryAcquire(waitMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			// stopping: the loop ends
		}
	}

	/** One timed wake-up per due moment: a worker that learns of an earlier one schedules it. */
	private void scheduleWake(long dueMillis) {
		long now = System.currentTimeMillis();
		long at = now + dueMillis + 5;
		long current = this.timedWakeAt.get();
		if ((current > at || current < now) && this.timedWakeAt.compareAndSet(current, at)) {
			this.timer.schedule(() -> {
				this.timedWakeAt.compareAndSet(at, Long.MAX_VALUE);
				this.wakeUps.release();
			}, dueMillis + 5, TimeUnit.MILLISECONDS);
		}
	}

	/** Runs the task and ends it; the worker's next task when the finish took one in the same step, else null. */
	private QueueScripts.@Nullable Taken run(QueueScripts.Started task) {
		Running entry = new Running(task.id(), Thread.currentThread(), task.sentNanos() + this.settings.leaseTime().toNanos());
		this.running.put(task.owner(), entry);
		this.listener.taskStarted(this.keys.queue(), Duration.ofMillis(Math.max(0, task.startedMillis() - task.submittedMillis())));
		long start = System.nanoTime();
		Throwable thrown = null;
		try {
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
				return finish(task, ran);
			}
			else if (this.stopping && (interrupted || failure instanceof InterruptedException)) {
				end(task, "released", ran, () -> this.scripts.release(this.keys, task.id(), task.owner(),
						"given back: " + this.instanceId + " stopped while it ran"));
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
				logger.warn("Task {} of queue '{}' (group '{}') failed on attempt {} of {}{}", task.id(), this.keys.queue(),
						task.group(), task.attempt(), this.settings.maxAttempts(),
						last ? "; it goes to the dead letters" : "; retried in " + DurationText.of(backoff), failure);
				end(task, last ? "dead" : "retry", ran, () -> this.scripts.fail(this.keys, task.id(), task.owner(),
						errorText(failure), this.settings.maxAttempts(), backoff));
			}
		}
		finally {
			this.running.remove(task.owner());
		}
		return null;
	}

	/**
	 * Finishes the task and takes the worker's next one in the same round trip; if Redis fails, the
	 * finish alone is sent again as {@link #end} does.
	 */
	private QueueScripts.@Nullable Taken finish(QueueScripts.Started task, Duration ran) {
		String nextOwner = this.stopping ? null : newOwner();
		try {
			QueueScripts.Finished finished = await(this.scripts.finishAndTake(this.keys, task.id(), task.owner(),
					this.settings.deduplicationWindow(), nextOwner, this.settings));
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
				untake(nextOwner);
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
				long result = await(call.get());
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

	private void renew() {
		try {
			renewRunning();
		}
		catch (RuntimeException ex) {
			// a scheduled task that throws is never run again: log, and renew on the next turn
			logger.warn("Renewing the leases of queue '{}' failed", this.keys.queue(), ex);
		}
	}

	private void renewRunning() {
		if (this.running.isEmpty()) {
			return;
		}
		// by task id; a task taken again on this instance after its lease ran out renews its newest take only
		Map<String, String> owners = new LinkedHashMap<>();
		this.running.forEach((owner, entry) -> owners.merge(entry.taskId(), owner, QueueWorkers::newerOwner));
		long sent = System.nanoTime();
		long renewedUntil = sent + this.settings.leaseTime().toNanos();
		this.scripts.renew(this.keys, owners, this.settings.leaseTime())
			.orTimeout(this.commandTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((lost, error) -> {
				if (error != null) {
					logger.warn("Renewing the leases of {} running task(s) of queue '{}' failed: {}", owners.size(),
							this.keys.queue(), message(error));
				}
				else {
					// by owner: the take this renewal was for; a lost lease is worth a warning only while its
					// attempt still runs (not for a finish or failure that reached Redis before the renewal)
					owners.forEach((id, owner) -> {
						Running entry = this.running.get(owner);
						if (entry == null) {
							return;
						}
						if (!lost.contains(id)) {
							entry.renewedUntil(renewedUntil);
						}
						else if (entry.lost()) {
							logger.warn("Task {} of queue '{}' lost its lease while it ran (this instance could not renew "
									+ "it in time): it may run again elsewhere, beside its group's later tasks", id,
									this.keys.queue());
						}
					});
				}
			});
	}

	/** From now on no task is taken; idle workers wake and end. */
	void refuseNew() {
		this.stopping = true;
		this.wakeUps.release(this.concurrency);
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
		this.running.forEach((owner, entry) -> entry.thread().interrupt());
		long afterInterrupt = System.nanoTime() + Math.min(this.commandTimeout.toNanos(), Duration.ofSeconds(2).toNanos());
		for (Thread thread : this.threads) {
			join(thread, afterInterrupt);
		}
		this.running.forEach((owner, entry) -> {
			logger.warn("Task {} of queue '{}' still runs after the shutdown timeout; given back to run elsewhere",
					entry.taskId(), this.keys.queue());
			try {
				await(this.scripts.release(this.keys, entry.taskId(), owner, "given back: " + this.instanceId
						+ " stopped and the task did not end within the shutdown timeout"));
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

	private <T> T await(CompletableFuture<T> reply) throws InterruptedException, ExecutionException, TimeoutException {
		try {
			return reply.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			reply.cancel(false);
			throw ex;
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

	private static String message(Throwable error) {
		Throwable cause = (error instanceof ExecutionException && error.getCause() != null) ? error.getCause() : error;
		return (cause instanceof TimeoutException) ? "no reply in time" : String.valueOf(cause.getMessage());
	}

	/** Of two owner ids of this instance ({@code <instance>:<sequence>}), the one taken later. */
	private static String newerOwner(String one, String other) {
		return (sequenceOf(one) >= sequenceOf(other)) ? one : other;
	}

	private static long sequenceOf(String owner) {
		return Long.parseLong(owner.substring(owner.lastIndexOf(':') + 1));
	}

	/**
	 * A task running on a worker thread, by its owner id (one per take), and its attempt's lease as
	 * this instance knows it: held until a local deadline counted from before the take (or the last
	 * renewal) was sent, so never later than Redis's expiry. Once its end is on its way to Redis, a
	 * renewal that finds its lease gone is that end, not a lost lease.
	 */
	private static final class Running implements SerialTask.Lease {

		private final String taskId;

		private final Thread thread;

		private volatile long deadlineNanos;

		private volatile boolean ending;

		private volatile boolean lost;

		Running(String taskId, Thread thread, long deadlineNanos) {
			this.taskId = taskId;
			this.thread = thread;
			this.deadlineNanos = deadlineNanos;
		}

		String taskId() {
			return this.taskId;
		}

		Thread thread() {
			return this.thread;
		}

		/** The attempt has ended: its lease is no longer its listener's. */
		void ending() {
			this.ending = true;
		}

		/** A renewal sent before {@code deadline} minus the lease was accepted. */
		synchronized void renewedUntil(long deadline) {
			if (deadline - this.deadlineNanos > 0) {
				this.deadlineNanos = deadline;
			}
		}

		/** A renewal found the lease gone; true if the attempt was still running then. */
		boolean lost() {
			this.lost = true;
			return !this.ending;
		}

		@Override
		public boolean isCurrent() {
			return !this.ending && !this.lost && System.nanoTime() - this.deadlineNanos < 0;
		}

		@Override
		public String toString() {
			return "lease of task " + this.taskId + (isCurrent() ? " (current)" : " (no longer current)");
		}

	}

}
