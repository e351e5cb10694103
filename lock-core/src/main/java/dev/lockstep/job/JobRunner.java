package dev.lockstep.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobFiring;
import dev.lockstep.JobGuardExecutor.Body;
import dev.lockstep.LockListener;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.InFlightWork;
import dev.lockstep.internal.redis.ReplyWait;

/**
 * Runs the firings this instance wins: claims each firing in Redis, renews the guard while the
 * run lasts, records how it ended, and takes over slots whose chosen instance never starts them.
 * One per started {@link RedisJobGuard}.
 */
final class JobRunner {

	private static final Logger logger = LoggerFactory.getLogger(JobRunner.class);

	/** How often an instance tells Redis it is alive for its guarded jobs. */
	static final Duration MEMBERSHIP_INTERVAL = Duration.ofSeconds(5);

	/** How often a takeover that found another run holding the guard tries again. */
	private static final Duration TAKEOVER_RETRY = Duration.ofSeconds(1);

	/**
	 * How often, within the skew tolerance of its firing, a chosen instance that found another run
	 * holding the guard tries again (the least; a random part up to {@link #WAIT_RETRY_SPREAD} is
	 * added so that instances do not try in step).
	 */
	private static final Duration WAIT_RETRY = Duration.ofMillis(100);

	private static final Duration WAIT_RETRY_SPREAD = Duration.ofMillis(150);

	/** The least time a slot's records are kept; see {@link #horizonMillis()}. */
	private static final Duration MIN_HORIZON = Duration.ofMinutes(5);

	private static final long RETENTION_MILLIS = Duration.ofDays(7).toMillis();

	private final JobScripts scripts;

	private final String keyPrefix;

	private final String instanceId;

	private final Duration skewTolerance;

	/** Where Redis is, in words, for the log lines that say it failed ({@code RedisAddress}). */
	private final String redis;

	private final Duration commandTimeout;

	private final LockListener listener;

	/** Firings between their claim and their finish; shutdown waits for them. */
	private final InFlightWork firings = new InFlightWork();

	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
			DaemonThreads.named("lockstep-job-guard"));

	/**
	 * Where takeovers and waits for the guard run, with the job's body when they claim the slot: a
	 * thread each while needed (threads idle for a minute end), so that one job's long run taken
	 * over here holds up no other job's takeover.
	 */
	private final ExecutorService takeovers = Executors.newCachedThreadPool(DaemonThreads.named("lockstep-job-takeover"));

	private final ObservationRegistry observations;

	private final ClockSkewWarnings skewWarnings;

	/** The guards of this instance's runs in progress: renewals and finishes. */
	private final RunGuards guards;

	/** Firings skipped, and those of them still to be recorded in Redis. */
	private final JobSkips skips;

	/** Claims of firings: owner ids, the claim script, and its undo when the reply is lost. */
	private final FiringClaims claims;

	/** How long after its slot a firing may still start. */
	private final SlotWindow window;

	/** The jobs whose membership of this instance Redis has recorded: finding it gone means Redis lost their records. */
	private final Set<String> members = ConcurrentHashMap.newKeySet();

	JobRunner(JobScripts scripts, String keyPrefix, String instanceId, Duration skewTolerance, Duration commandTimeout,
			LockListener listener, ObservationRegistry observations, String redis) {
		this.observations = observations;
		this.redis = redis;
		this.scripts = scripts;
		// every run schedules a renewal and cancels it when it ends: do not keep the cancelled ones queued
		this.timer.setRemoveOnCancelPolicy(true);
		this.keyPrefix = keyPrefix;
		this.instanceId = instanceId;
		this.skewTolerance = skewTolerance;
		this.skewWarnings = new ClockSkewWarnings(skewTolerance);
		this.commandTimeout = commandTimeout;
		this.listener = listener;
		GuardContext context = new GuardContext(scripts, keyPrefix, instanceId, redis, commandTimeout, listener);
		this.skips = new JobSkips(context);
		this.window = new SlotWindow(skewTolerance);
		this.claims = new FiringClaims(context, this.skips, this::horizonMillis, this.window, this.members::contains);
		this.guards = new RunGuards(context, this.timer, this.firings);
	}

	/** Waits (for lockstep.command-timeout at most) until the last run of {@code job} this instance finished is recorded. */
	void awaitRecorded(String job) {
		this.guards.awaitRecorded(job);
	}

	/** Tells Redis, now and every {@link #MEMBERSHIP_INTERVAL}, that this instance can run {@code jobs}. */
	void announce(java.util.function.Supplier<List<GuardedJob>> jobs) {
		this.timer.scheduleWithFixedDelay(() -> {
			for (GuardedJob job : jobs.get()) {
				this.skips.recordUnrecorded(job);
				this.scripts.member(keys(job), this.instanceId, true, RETENTION_MILLIS, livenessMillis(), horizonMillis(),
						this.members.contains(job.name()), this.skewTolerance.toMillis())
					.whenComplete((done, error) -> {
						if (error != null) {
							logger.debug("Could not announce instance for job '{}'", job.name(), error);
						}
						else {
							this.members.add(job.name());
						}
					});
			}
		}, 0, MEMBERSHIP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * Stops taking firings, waits up to {@code timeout} for running jobs to finish and give up
	 * their guards, then leaves the jobs' member lists.
	 */
	void stop(Duration timeout, List<GuardedJob> jobs) {
		this.firings.refuseNew();
		int running = this.firings.awaitNone(timeout);
		if (running > 0) {
			logger.warn("{} guarded job(s) still running after {}; their guards free themselves within lockAtMostFor",
					running, DurationText.of(timeout));
		}
		this.timer.shutdownNow();
		this.takeovers.shutdownNow();
		for (GuardedJob job : jobs) {
			await(this.scripts.member(keys(job), this.instanceId, false, RETENTION_MILLIS, livenessMillis(), horizonMillis()),
					job, "leaving");
		}
	}

	/**
	 * Runs one firing of {@code job} if this instance wins it.
	 * @param slot the firing's cron slot in epoch milliseconds, or null
	 * @param body the guarded method
	 * @param later the same method, to run later if the firing is left to an instance that never starts it
	 */
	@Nullable Object run(GuardedJob job, @Nullable Long slot, Body body, @Nullable Body later) throws Throwable {
		if (!enter()) {
			this.skips.skipped(job, "the application is shutting down");
			return null;
		}
		try {
			long firedNanos = System.nanoTime();
			JobClaim claim = this.claims.claim(job, slot, JobScripts.Mode.FIRST, null);
			if (claim == null) {
				return null;
			}
			if (slot != null) {
				this.skewWarnings.check(job, slot, claim.serverMillis());
			}
			if (slot != null && claim.held() && claim.heldByAnEarlierSlotForAWholePeriod(slot)) {
				JobClaim given = giveUp(job, slot, claim);
				// Redis failed: nothing was decided, the slot is waited for below as if still held
				claim = (given != null) ? given : claim;
			}
			if (claim.runs()) {
				return runClaimed(job, slot, claim, body, 1);
			}
			if (slot != null && claim.held() && later != null) {
				// the guard is held by a run that is not a job longer than its period (the previous slot's
				// run started late on a lagging clock, or this firing is late after a pause): wait for it
				logger.debug("Job '{}' waits to run the firing of {}: {}", job.name(), Instant.ofEpochMilli(slot),
						claim.reason());
				// no later than the slot's window (counted from when it is due by Redis's clock, which this
				// clock may run ahead of); the claim refuses it after that anyway
				long early = Math.max(0, slot - claim.serverMillis());
				scheduleWait(job, slot, later, firedNanos,
						firedNanos + TimeUnit.MILLISECONDS.toNanos(early + this.window.millis(job, slot)));
				return null;
			}
			this.skips.skipped(job, claim.reason());
			if (claim.deferred() && later != null) {
				// skew-tolerance after the slot is due by Redis's clock: a clock that runs ahead fires
				// first, and its takeover must not run the slot before the chosen instance could
				long early = (slot != null) ? Math.max(0, slot - claim.serverMillis()) : 0;
				long window = (slot != null) ? this.window.millis(job, slot) : horizonMillis();
				scheduleTakeover(job, slot, later, this.skewTolerance.plusMillis(early), 2,
						System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(early + window));
			}
			return null;
		}
		finally {
			leave();
		}
	}

	/**
	 * The chosen instance's claim found an earlier slot's run holding the guard a whole period after
	 * that slot: the job runs longer than its period, and the slot is given up for good (unless the
	 * guard is free by now). Null when Redis failed.
	 */
	private @Nullable JobClaim giveUp(GuardedJob job, long slot, JobClaim held) {
		JobClaim.Holder holder = held.holder();
		return this.claims.claim(job, slot, JobScripts.Mode.GIVE_UP, (holder != null) ? holder.owner() : null);
	}

	private void scheduleWait(GuardedJob job, long slot, Body body, long firedNanos, long until) {
		boolean withinTolerance = System.nanoTime() - firedNanos < this.skewTolerance.toNanos();
		long delay = withinTolerance
				? WAIT_RETRY.toMillis() + ThreadLocalRandom.current().nextLong(WAIT_RETRY_SPREAD.toMillis() + 1)
				: TAKEOVER_RETRY.toMillis();
		retryLater(job, slot, until, "waiting to run", delay, () -> awaitGuard(job, slot, body, firedNanos, until));
	}

	/**
	 * The chosen instance found the guard held by a run that is not a job longer than its period:
	 * tries again until the slot runs here or elsewhere, or is given up because the holding run (of
	 * an earlier slot) turns out to last a whole period, or because a run without a known slot still
	 * holds it after the skew tolerance; for the horizon at most.
	 */
	private void awaitGuard(GuardedJob job, long slot, Body body, long firedNanos, long until) throws Throwable {
		JobClaim claim = this.claims.claim(job, slot, JobScripts.Mode.TAKEOVER, null);
		if (claim != null && claim.held()) {
			JobClaim.Holder holder = claim.holder();
			boolean waitedTolerance = System.nanoTime() - firedNanos >= this.skewTolerance.toNanos();
			if (claim.heldByAnEarlierSlotForAWholePeriod(slot)
					|| (waitedTolerance && (holder == null || holder.slot() == null))) {
				claim = giveUp(job, slot, claim);
			}
		}
		if (claim == null || claim.held()) {
			scheduleWait(job, slot, body, firedNanos, until);
			return;
		}
		if (!claim.runs()) {
			this.skips.skipped(job, claim.reason());
			return;
		}
		logger.debug("Job '{}' runs the firing of {} after waiting for the guard", job.name(), Instant.ofEpochMilli(slot));
		runClaimed(job, slot, claim, body, 1);
	}

	private void scheduleTakeover(GuardedJob job, Long slot, Body body, Duration delay, int attempt, long until) {
		retryLater(job, slot, until, "taking over", delay.toMillis(), () -> takeOver(job, slot, body, attempt, until));
	}

	/**
	 * The chosen instance never started the slot: run it here, unless someone did or it was
	 * decided meanwhile. While another run holds the guard or Redis fails, tries again until the
	 * slot is decided, for the horizon at most.
	 */
	private void takeOver(GuardedJob job, Long slot, Body body, int attempt, long until) throws Throwable {
		JobClaim claim = this.claims.claim(job, slot, JobScripts.Mode.TAKEOVER, null);
		if (claim == null || claim.held()) {
			scheduleTakeover(job, slot, body, TAKEOVER_RETRY, attempt + 1, until);
			return;
		}
		if (!claim.runs()) {
			return;
		}
		logger.info("Job '{}' runs the firing of {} that the chosen instance did not start", job.name(),
				Instant.ofEpochMilli(slot));
		runClaimed(job, slot, claim, body, attempt);
	}

	/**
	 * Makes {@code retry} another attempt at {@code job}'s firing of {@code slot}, on a takeover
	 * thread after {@code delayMillis}: unless the slot's horizon {@code until} (nano time) has passed
	 * ({@code doing} says what was given up) or shutdown has begun, which leaves the slot to the
	 * instances still running.
	 */
	private void retryLater(GuardedJob job, Long slot, long until, String doing, long delayMillis, Retry retry) {
		if (System.nanoTime() - until > 0) {
			logger.warn("Job '{}' gave up {} the firing of {}: the guard stayed held, or Redis unreachable, "
					+ "past the window in which the slot may still run", job.name(), doing, Instant.ofEpochMilli(slot));
			// recorded in Redis once it answers again (an outage costs firings, and the skip says so)
			this.skips.skippedUnrecorded(job, slot, "gave up " + doing + ": past the window in which it may still run ("
					+ DurationText.of(Duration.ofMillis(this.window.millis(job, slot)))
					+ " after it: twice lockstep.job-guard.skew-tolerance and a period), the guard held or Redis unreachable until then");
			return;
		}
		try {
			this.timer.schedule(() -> this.takeovers.execute(() -> attempt(job, retry)), delayMillis,
					TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping: the slot is left to the instances still running
		}
	}

	private void attempt(GuardedJob job, Retry retry) {
		if (!enter()) {
			return;
		}
		try {
			retry.run();
		}
		catch (Throwable ex) {
			logger.error("Job '{}' failed", job.name(), ex);
		}
		finally {
			leave();
		}
	}

	/** One more attempt at a firing, on a takeover thread. */
	private interface Retry {

		void run() throws Throwable;

	}

	/** Counts a firing in, unless shutdown has begun. */
	private boolean enter() {
		return this.firings.enter();
	}

	private void leave() {
		this.firings.leave();
	}



	private @Nullable Object runClaimed(GuardedJob job, @Nullable Long slot, JobClaim claim, Body body, int attempt)
			throws Throwable {
		RunGuards.Run run = new RunGuards.Run(job, claim.owner(), claim.token(), claim.start(), slot, new AtomicBoolean());
		ScheduledFuture<?> renewal = null;
		Throwable failure = null;
		long startedNanos = System.nanoTime();
		JobFiring outer = GuardedRuns.enter(new JobFiring(job.name(),
				(slot != null) ? Instant.ofEpochMilli(slot) : null, this.instanceId, attempt, claim.token()));
		try {
			renewal = this.guards.begin(run);
			return JobObservations.observed(this.observations, job, attempt, body);
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			long tookNanos = System.nanoTime() - startedNanos;
			GuardedRuns.exit(outer);
			if (renewal != null) {
				renewal.cancel(false);
			}
			// the guard is given up before the listener hears of the run: not even an Error it throws keeps it
			this.guards.finish(run, failure, tookNanos);
			this.listener.jobRan(job.name(), Duration.ofNanos(tookNanos), failure == null);
		}
	}




	/** How long since an instance was last seen it may still be chosen to run a slot. */
	static long livenessMillis() {
		return MEMBERSHIP_INTERVAL.toMillis() * 3;
	}

	/**
	 * How long slot records are kept, in server time: a firing of an older slot never runs, so
	 * a clock that far behind cannot run a slot twice. Far longer than the clock skew tolerated.
	 */
	long horizonMillis() {
		return Math.max(MIN_HORIZON.toMillis(), this.skewTolerance.toMillis() * 20);
	}



	/** The reply, or null (logged) when Redis failed: a guarded job then skips its firing rather than run unguarded. */
	private <T> @Nullable T await(CompletableFuture<T> reply, GuardedJob job, String doing) {
		try {
			return new ReplyWait(this.commandTimeout, this.redis).get(reply);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			logger.warn("{} failed while {} job '{}'; the firing does not run: {}", this.redis, doing, job.name(),
					ex.toString());
		}
		return null;
	}

	private JobKeys keys(GuardedJob job) {
		return JobKeys.of(this.keyPrefix, job.name());
	}



}
