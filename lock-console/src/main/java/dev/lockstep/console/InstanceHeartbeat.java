package dev.lockstep.console;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.SerialQueueRegistry;

/**
 * Writes this instance's heartbeat record every {@code lockstep.console.heartbeat-interval} (see
 * {@link InstanceRecords}), and with it a history sample of the queues it runs tasks of (see
 * {@link ConsoleHistory}), this instance's counts since the last beat (see {@link ActivityHistory}),
 * and takes a "run now" request of a job it guards, if one waits (see {@link JobTriggerRequests}).
 * A failed write is logged and tried again at the next beat.
 */
final class InstanceHeartbeat implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(InstanceHeartbeat.class);

	private final InstanceRecords records;

	private final ConsoleHistory history;

	private final String instanceId;

	private final String version;

	private final Duration interval;

	/** Longest wait for Redis when the instance stops ({@code lockstep.command-timeout}). */
	private final Duration commandTimeout;

	private final @Nullable LockStateRegistry locks;

	private final @Nullable SerialQueueRegistry queues;

	private final @Nullable JobGuardRegistry jobs;

	private final Activity activity;

	private final String host = hostName();

	private @Nullable ScheduledExecutorService timer;

	private volatile boolean failing;

	InstanceHeartbeat(InstanceRecords records, ConsoleHistory history, String instanceId, String version,
			Duration interval, Duration commandTimeout, @Nullable LockStateRegistry locks, @Nullable SerialQueueRegistry queues,
			@Nullable JobGuardRegistry jobs, Activity activity) {
		this.records = records;
		this.activity = activity;
		this.history = history;
		this.instanceId = instanceId;
		this.version = version;
		this.interval = interval;
		this.commandTimeout = commandTimeout;
		this.locks = locks;
		this.queues = queues;
		this.jobs = jobs;
	}

	@Override
	public synchronized void start() {
		if (this.timer != null) {
			return;
		}
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "lockstep-console-heartbeat");
			thread.setDaemon(true);
			return thread;
		});
		timer.scheduleWithFixedDelay(this::beat, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
		this.timer = timer;
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService timer = this.timer;
		if (timer == null) {
			return;
		}
		timer.shutdownNow();
		this.timer = null;
		try {
			timer.awaitTermination(2, TimeUnit.SECONDS);
			removeAliveMark();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Removes this instance's alive mark, waiting for Redis at most the command timeout: a Redis that
	 * does not answer (down, paused, cut off) must not hold the application's shutdown for the
	 * client's own timeout. The mark left behind expires three heartbeats later anyway.
	 */
	private void removeAliveMark() throws InterruptedException {
		Thread removal = new Thread(() -> {
			try {
				this.records.gone(this.instanceId);
			}
			catch (RuntimeException ex) {
				logger.debug("Lockstep console: could not remove the heartbeat of {}", this.instanceId, ex);
			}
		}, "lockstep-console-heartbeat-stop");
		removal.setDaemon(true);
		removal.start();
		removal.join(this.commandTimeout.toMillis());
		if (removal.isAlive()) {
			removal.interrupt();
			logger.debug("Lockstep console: Redis did not remove the heartbeat of {} within {}; it expires on its own",
					this.instanceId, this.commandTimeout);
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.timer != null;
	}

	/** After the lock service and the queues start (phases 1000 to 2000, see {@code LifecyclePhases}), before they stop. */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE - 1;
	}

	void beat() {
		try {
			LockStateRegistry locks = this.locks;
			List<InstanceRecords.HeldByInstance> held = (locks != null) ? locks.heldLocks().stream()
				.map((lock) -> new InstanceRecords.HeldByInstance(lock.key(), lock.thread(), lock.fencingToken(),
						lock.heldSince().toEpochMilli(), lock.permits()))
				.toList() : List.of();
			List<String> queueNames = (this.queues != null) ? this.queues.listenedQueues() : List.of();
			List<GuardedJob> guarded = (this.jobs != null) ? this.jobs.jobs() : List.of();
			List<String> jobNames = guarded.stream().map(GuardedJob::name).toList();
			List<GuardedJob> runnable = guarded.stream().filter((job) -> this.activity.triggers().find(job).isPresent()).toList();
			this.records.write(new InstanceRecords.InstanceRecord(this.instanceId, this.host, this.version,
					lockstepVersion(), (locks != null) ? locks.instanceId() : this.instanceId,
					System.currentTimeMillis(), queueNames, jobNames, runnable.stream().map(GuardedJob::name).toList(), held, true),
					this.interval.multipliedBy(3));
			if (this.queues != null) {
				this.history.sample(this.queues, queueNames);
			}
			this.activity.history().add(this.activity.listener().drain(), System.currentTimeMillis());
			runnable.forEach(this::takeRequest);
			if (this.failing) {
				logger.info("Lockstep console: heartbeat of {} written again", this.instanceId);
				this.failing = false;
			}
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				logger.warn("Lockstep console: could not write the heartbeat of {}; trying again every {}", this.instanceId,
						this.interval, ex);
				this.failing = true;
			}
		}
	}

	/** Takes a "run now" request for {@code job}, if one waits, and runs it on a thread of its own. */
	private void takeRequest(GuardedJob job) {
		JobGuardRegistry registry = this.jobs;
		Runnable call = this.activity.triggers().find(job).orElse(null);
		if (registry == null || call == null) {
			return;
		}
		JobTriggerRequests.Trigger taken = this.activity.requests().take(job.name(), this.instanceId);
		if (taken == null) {
			return;
		}
		Thread thread = new Thread(() -> {
			try {
				this.activity.requests().run(job.name(), taken, call, registry);
			}
			catch (RuntimeException ex) {
				logger.warn("Lockstep console: the run of job '{}' asked by {} failed to be recorded", job.name(), taken.user(), ex);
			}
		}, "lockstep-console-run-now");
		thread.setDaemon(true);
		thread.start();
	}

	static String lockstepVersion() {
		String version = LockStateRegistry.class.getPackage().getImplementationVersion();
		return (version != null) ? version : "development";
	}

	/**
	 * What the heartbeat carries besides the record: this instance's counts for the history, and the
	 * "run now" requests it takes.
	 */
	record Activity(ActivityListener listener, ActivityHistory history, JobTriggerRequests requests, JobTriggers triggers) {
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown";
		}
	}

}
