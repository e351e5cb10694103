package dev.lockstep.job;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.GuardedJob;
import dev.lockstep.LockLostEvent;
import dev.lockstep.internal.InFlightWork;

/**
 * The guards of this instance's runs in progress, from their claim to their finish: renewed every
 * third of lockAtMostFor while the job runs, then given up (or kept for what is left of
 * lockAtLeastFor) with the run recorded, the finish sent again every second while Redis fails.
 */
final class RunGuards {

	private static final Logger logger = LoggerFactory.getLogger(RunGuards.class);

	private final GuardContext context;

	private final ScheduledExecutorService timer;

	/** Firings between their claim and their finish; a finish still being sent counts as one. */
	private final InFlightWork firings;

	private final Set<Run> runs = ConcurrentHashMap.newKeySet();

	/** Per job, the last run's finish sent to Redis and not yet answered. */
	private final Map<String, CompletableFuture<Long>> unrecordedFinishes = new ConcurrentHashMap<>();

	RunGuards(GuardContext context, ScheduledExecutorService timer, InFlightWork firings) {
		this.context = context;
		this.timer = timer;
		this.firings = firings;
	}

	/** Starts renewing the guard of {@code run}, every third of its job's lockAtMostFor, until it finishes. */
	ScheduledFuture<?> begin(Run run) {
		this.runs.add(run);
		long renewEvery = Math.max(1, run.job().lockAtMostFor().toMillis() / 3);
		return this.timer.scheduleAtFixedRate(() -> renew(run), renewEvery, renewEvery, TimeUnit.MILLISECONDS);
	}

	/**
	 * Records the run's end and gives up its guard without waiting for the reply, as a lock's
	 * release does: the next claim on this instance goes out on the same connection after it, so
	 * it finds the guard given up. A finish that fails (Redis unreachable, a failover) is sent again
	 * every second until it is recorded, the guard's lease (lockAtMostFor) would have run out anyway,
	 * or this instance has stopped: a finish sent again is recorded once (job-finish.lua), and
	 * without it the guard would stay held, and every later slot skipped, for up to lockAtMostFor.
	 * Shutdown waits for the outcome (up to its timeout), and so do this instance's reads of the run
	 * records ({@link #awaitRecorded}).
	 */
	void finish(Run run, @Nullable Throwable failure, long durationNanos) {
		GuardedJob job = run.job();
		this.firings.enterAlways();
		Supplier<CompletableFuture<Long>> send = () -> this.context.scripts().finish(keys(job), run.owner(),
				this.context.instanceId(), run.slot(), run.start(), run.start() + TimeUnit.NANOSECONDS.toMillis(durationNanos), failure,
				job.lockAtLeastFor().toMillis(), JobRecords.HISTORY_SIZE);
		CompletableFuture<Long> sent;
		synchronized (run) {
			// a renewal already on its way goes out before the finish, none after it (see renew)
			run.ended().set(true);
			sent = send.get();
		}
		CompletableFuture<Long> finished = new CompletableFuture<>();
		this.unrecordedFinishes.put(job.name(), finished);
		finished.whenComplete((released, error) -> {
			try {
				if (error != null) {
					logger.warn("{} failed while finishing a run of job '{}' until its guard's lease would run out; "
							+ "it frees itself within lockAtMostFor: {}", this.context.redis(), job.name(), error.toString());
				}
				else if (released == 0) {
					logger.warn("Job '{}' no longer held its guard when it finished; it ran longer than it could renew",
							job.name());
				}
				this.runs.remove(run);
				this.unrecordedFinishes.remove(job.name(), finished);
			}
			finally {
				this.firings.leave();
			}
		});
		awaitFinish(job, sent, send, finished, System.nanoTime() + job.lockAtMostFor().toNanos(), 1);
	}

	/** Completes {@code finished} with the finish's reply, sending it again every second while Redis fails. */
	private void awaitFinish(GuardedJob job, CompletableFuture<Long> call, Supplier<CompletableFuture<Long>> send,
			CompletableFuture<Long> finished, long giveUpAt, int attempt) {
		call.orTimeout(this.context.commandTimeout().toMillis(), TimeUnit.MILLISECONDS).whenComplete((released, error) -> {
			if (error == null) {
				if (attempt > 1) {
					logger.info("The run of job '{}' was finished on attempt {}", job.name(), attempt);
				}
				finished.complete(released);
			}
			else if (System.nanoTime() - giveUpAt > 0 || this.timer.isShutdown()) {
				// the guard's lease has run out anyway, or this instance stopped (its connection is closing)
				finished.completeExceptionally(error);
			}
			else {
				if (attempt == 1) {
					logger.warn("{} failed while finishing a run of job '{}'; sending it again every second: {}",
							this.context.redis(), job.name(), error.toString());
				}
				CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS)
					.execute(() -> awaitFinish(job, send.get(), send, finished, giveUpAt, attempt + 1));
			}
		});
	}

	/** Waits (for lockstep.command-timeout at most) until the last run of {@code job} this instance finished is recorded. */
	void awaitRecorded(String job) {
		CompletableFuture<Long> finished = this.unrecordedFinishes.get(job);
		if (finished != null) {
			try {
				finished.get(this.context.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Exception ex) {
				// logged where the finish completes; the records read are then the ones Redis has
			}
		}
	}

	/**
	 * Extends the guard of a run still going. Sent under the run's monitor, as its finish is: a
	 * renewal that reached Redis after the finish would stretch a guard the finish had shortened to
	 * what is left of lockAtLeastFor back to lockAtMostFor, and every instance would skip the job
	 * until then. Both go out in order on the one connection.
	 */
	private void renew(Run run) {
		CompletableFuture<List<Long>> sent;
		synchronized (run) {
			if (run.ended().get()) {
				return;
			}
			sent = this.context.scripts().renew(keys(run.job()), run.owner(), run.job().lockAtMostFor().toMillis());
		}
		sent.orTimeout(this.context.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((renewed, error) -> {
				if (error != null) {
					logger.warn("Could not renew the guard of job '{}' on {}, will retry: {}", run.job().name(), this.context.redis(),
							error.toString());
				}
				else if (renewed.get(0) == 0L && this.runs.contains(run)) {
					String reason = "the guard was gone from Redis while the job still ran";
					logger.error("Job '{}' lost its guard: {}", run.job().name(), reason);
					this.context.listener().lost(new LockLostEvent("job:" + run.job().name(), run.token(), reason));
				}
			});
	}

	private JobKeys keys(GuardedJob job) {
		return this.context.keys(job);
	}

	/** A run in progress; {@code ended} once its finish is sent (set under the run's monitor). */
	record Run(GuardedJob job, String owner, long token, long start, @Nullable Long slot, AtomicBoolean ended) {
	}

}
