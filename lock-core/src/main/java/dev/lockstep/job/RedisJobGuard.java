package dev.lockstep.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobElection;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobMember;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockListener;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.IsolatedListener;
import dev.lockstep.internal.LifecyclePhases;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.redis.RedisAddress;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ReplyWait;

/**
 * The job guard on Redis: decides per firing which instance runs a guarded job, keeps the guard
 * while the run lasts, records runs and skips, and on shutdown lets running jobs finish and give
 * up their guards before the Redis connection closes. Settings are fixed once it has started.
 */
public final class RedisJobGuard implements JobGuardExecutor, JobGuardRegistry, SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(RedisJobGuard.class);

	/** How many of the latest slots {@link #elections(String)} shows. */
	private static final int ELECTIONS_SHOWN = 20;

	private final RedisConnectionFactory connectionFactory;

	private final GuardedJobs jobs;

	private String keyPrefix = NamingRules.DEFAULT_KEY_PREFIX;

	private String instanceId = NamingRules.defaultInstanceId();

	private Duration skewTolerance = Duration.ofSeconds(10);

	private ObservationRegistry observations = ObservationRegistry.NOOP;

	private Duration shutdownTimeout = Duration.ofSeconds(30);

	private Duration commandTimeout = Duration.ofSeconds(5);

	private LockListener listener = new LockListener() {
	};

	private volatile @Nullable JobRunner runner;

	private @Nullable RedisScripts redis;

	private @Nullable JobRecords records;

	/**
	 * @param connectionFactory the Redis connection the guard's own client is made from
	 * @param jobs the jobs to guard, as the {@link JobGuardAdvisor} finds them
	 */
	public RedisJobGuard(RedisConnectionFactory connectionFactory, GuardedJobs jobs) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.notNull(jobs, "GuardedJobs must not be null");
		this.connectionFactory = connectionFactory;
		this.jobs = jobs;
	}

	/** Prefix of every Redis key the guard writes; default {@code lockstep:}. */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("Key prefix", keyPrefix);
	}

	/** The id written into run records and skip reasons; default host name, process id and a random suffix. */
	public void setInstanceId(String instanceId) {
		this.instanceId = NamingRules.instanceId("Instance id", instanceId);
	}

	/**
	 * How long the instance that fires first waits for the instance chosen to run a cron firing
	 * before running it itself, and how long a chosen instance that finds the guard held tries again
	 * every 100-250 ms (every second after that); above the clock skew expected between instances.
	 * Default 10s.
	 */
	public void setSkewTolerance(Duration skewTolerance) {
		this.skewTolerance = DurationRules.notNegative("Skew tolerance", skewTolerance);
	}

	/** How long shutdown waits for running guarded jobs to finish and give up their guards; default 30s. */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = DurationRules.notNegative("Shutdown timeout", shutdownTimeout);
	}

	/** Longest wait for one Redis reply; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("Command timeout", commandTimeout);
	}

	/** Receives skips and lost guards; default none. */
	public void setListener(LockListener listener) {
		this.listener = IsolatedListener.of(listener);
	}

	/**
	 * Where guarded runs are observed ({@code lockstep.job.run}, tagged with the job's name, the
	 * outcome and whether the run is a takeover); default none.
	 */
	public void setObservationRegistry(ObservationRegistry observations) {
		this.observations = observations;
	}

	@Override
	public String instanceId() {
		return this.instanceId;
	}

	@Override
	public List<GuardedJob> jobs() {
		return this.jobs.all();
	}

	@Override
	public Optional<JobRun> lastRun(String job) {
		awaitRecorded(job);
		return this.records.lastRun(job);
	}

	@Override
	public Optional<JobSkip> lastSkip(String job) {
		return this.records.lastSkip(job);
	}

	@Override
	public List<JobRun> history(String job) {
		awaitRecorded(job);
		return this.records.history(job);
	}

	/** A run this instance finished is in the records read after it (its finish is sent without waiting). */
	private void awaitRecorded(String job) {
		JobRunner current = this.runner;
		if (current != null) {
			current.awaitRecorded(job);
		}
	}

	@Override
	public Optional<JobNextSlot> nextSlot(String job) {
		return this.jobs.find(job).flatMap((guarded) -> this.records.nextSlot(guarded, JobRunner.livenessMillis()));
	}

	@Override
	public List<JobMember> members(String job) {
		return this.records.members(job);
	}

	@Override
	public List<JobElection> elections(String job) {
		return this.records.elections(job, ELECTIONS_SHOWN);
	}

	@Override
	public synchronized void start() {
		if (this.runner != null) {
			return;
		}
		this.redis = new RedisScripts(this.connectionFactory);
		JobScripts scripts = new JobScripts(this.redis);
		this.records = new JobRecords(scripts, new ReplyWait(this.commandTimeout, RedisAddress.of(this.connectionFactory)),
				this.keyPrefix);
		scripts.preload(this.commandTimeout);
		JobRunner runner = new JobRunner(scripts, this.keyPrefix, this.instanceId, this.skewTolerance,
				this.commandTimeout, this.listener, this.observations, RedisAddress.of(this.connectionFactory));
		runner.announce(this::jobs);
		this.runner = runner;
		List<GuardedJob> jobs = jobs();
		if (!jobs.isEmpty()) {
			logger.info("Lockstep guards {} job(s) as instance {}: {}", jobs.size(), this.instanceId,
					String.join(", ", jobs.stream().map(RedisJobGuard::describe).toList()));
		}
	}

	private static String describe(GuardedJob job) {
		return "'" + job.name() + "' (" + job.method() + ", lockAtMostFor " + DurationText.of(job.lockAtMostFor())
				+ ", lockAtLeastFor " + DurationText.of(job.lockAtLeastFor()) + ")";
	}

	/**
	 * Stops taking firings, waits up to the shutdown timeout for running jobs to finish and give
	 * up their guards, then leaves the jobs' member lists and closes the connection.
	 */
	@Override
	public void stop() {
		JobRunner stopping;
		synchronized (this) {
			stopping = this.runner;
			this.runner = null;
		}
		if (stopping != null) {
			stopping.stop(this.shutdownTimeout, jobs());
			this.redis.close();
		}
	}

	@Override
	public boolean isRunning() {
		return this.runner != null;
	}

	/** After the schedulers (so their jobs are done) and before the lock service and Redis connections. */
	@Override
	public int getPhase() {
		return LifecyclePhases.JOB_GUARD;
	}

	/** Runs one firing of {@code job} if this instance wins it, through Redis; see {@link JobRunner#run}. */
	@Override
	public @Nullable Object execute(GuardedJob job, @Nullable Instant cronSlot, Body body, @Nullable Body retry)
			throws Throwable {
		JobRunner current = this.runner;
		if (current == null) {
			logger.debug("Job '{}' skipped this firing: the job guard is not running", job.name());
			return null;
		}
		return current.run(job, (cronSlot != null) ? cronSlot.toEpochMilli() : null, body, retry);
	}


}
