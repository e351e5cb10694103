package dev.lockstep.autoconfigure.actuate;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.lockstep.Counters;
import dev.lockstep.JobElection;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobMember;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockKeyException;
import dev.lockstep.LockSnapshot;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.SerialTask;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * The {@code lockstep} actuator endpoint: this instance and what it coordinates.
 * <ul>
 * <li>{@code GET /actuator/lockstep}: the instance, the Redis mode and a summary;</li>
 * <li>{@code GET /actuator/lockstep/locks}: the locks this instance holds and its calls waiting;</li>
 * <li>{@code GET /actuator/lockstep/locks/{key}}: any key, read from Redis: holder, token, lease left, waiters;</li>
 * <li>{@code GET /actuator/lockstep/jobs}: every job this instance guards, with its last run and skip;</li>
 * <li>{@code GET /actuator/lockstep/jobs/{name}}: one job, read from Redis, with its recent history, the
 * instances seen alive for it and the instance chosen for each recent cron slot;</li>
 * <li>{@code GET /actuator/lockstep/ratelimits}: the rate-limit keys this instance decided on lately (up to
 * 100), with their limits and last decisions;</li>
 * <li>{@code GET /actuator/lockstep/ratelimits/{key}}: any rate-limit key, read from Redis: calls left now
 * and how long until its bucket is full again;</li>
 * <li>{@code GET /actuator/lockstep/counters/{key}}: a bounded counter's count.</li>
 * </ul>
 * Each feature answers for its own paths ({@code LockEndpointPart}, {@code JobEndpointPart},
 * {@code QueueEndpointPart}, {@code LimitEndpointPart}), reading through the features' registries
 * ({@link LockStateRegistry}, {@link JobGuardRegistry}, {@link SerialQueueRegistry}).
 * Reading costs Redis one read-only script per job record, per key asked for or waited on; nothing
 * scans the key space. Each read waits at most {@code lockstep.command-timeout}. A key or name
 * Lockstep refuses (a lock key or queue name over 1024 bytes, braces in a queue name or a rate-limit
 * key) is a bad request (HTTP 400, its reason in the body as {@code spring.web.error.include-message}
 * allows), not a server error.
 * <p>
 * Read-only unless the application says otherwise: the operations that change Redis (a dead task's
 * redrive, {@code POST}, and discard, {@code DELETE}) are there only with
 * {@code management.endpoint.lockstep.access=unrestricted}.
 */
@Endpoint(id = "lockstep", defaultAccess = Access.READ_ONLY)
public final class LockstepEndpoint {

	private final String redisMode;

	private final @Nullable RecentLockLosses losses;

	private final @Nullable LockEndpointPart locks;

	private final @Nullable JobEndpointPart jobs;

	private final @Nullable QueueEndpointPart queues;

	private LimitEndpointPart limits = new LimitEndpointPart(null, null);

	/**
	 * @param redisMode {@code standalone}, {@code sentinel} or {@code cluster}
	 * @param locks the lock service's views, or null for a lock service of the application's own
	 * @param losses the locks lost recently, or null
	 * @param jobs the job records, or null without a job guard
	 * @param queues the serial queues' views, or null without Lockstep's serial queue
	 */
	public LockstepEndpoint(String redisMode, @Nullable LockStateRegistry locks, @Nullable RecentLockLosses losses,
			@Nullable JobGuardRegistry jobs, @Nullable SerialQueueRegistry queues) {
		this.redisMode = redisMode;
		this.losses = losses;
		this.locks = (locks != null) ? new LockEndpointPart(locks) : null;
		this.jobs = (jobs != null) ? new JobEndpointPart(jobs) : null;
		this.queues = (queues != null) ? new QueueEndpointPart(queues) : null;
	}

	/** Adds the rate-limit and counter views; either may be null (not there, or the application's own). */
	void limits(@Nullable RedisRateLimiter rateLimiter, @Nullable Counters counters) {
		this.limits = new LimitEndpointPart(rateLimiter, counters);
	}

	@ReadOperation
	public Overview overview() {
		return new Overview((this.locks != null) ? this.locks.registry().instanceId() : null,
				(this.jobs != null) ? this.jobs.jobs().instanceId() : null, this.redisMode,
				(this.jobs != null) ? this.jobs.names() : List.of(),
				(this.losses != null) ? this.losses.losses().size() : null,
				(this.losses != null) ? this.losses.window() : null,
				(this.queues != null) ? this.queues.queues().listenedQueues() : List.of());
	}

	/**
	 * {@code locks}, {@code locks/{key}}, {@code permits/{key}}, {@code jobs}, {@code jobs/{name}},
	 * {@code queues}, {@code queues/{name}}, {@code ratelimits}, {@code ratelimits/{key}} or
	 * {@code counters/{key}}: each feature's part answers for its own; anything else is not found.
	 */
	@ReadOperation
	public @Nullable Object part(@Selector(match = Match.ALL_REMAINING) String... path) {
		if (path.length == 0) {
			return null;
		}
		String rest = (path.length > 1) ? String.join("/", Arrays.copyOfRange(path, 1, path.length)) : null;
		return checked(() -> switch (path[0]) {
			case "locks" -> (this.locks != null) ? this.locks.locks(rest) : null;
			case "permits" -> (this.locks != null) ? this.locks.permits(rest) : null;
			case "jobs" -> (this.jobs != null) ? this.jobs.read(rest) : null;
			case "queues" -> (this.queues != null) ? this.queues.read(rest) : null;
			case "ratelimits" -> this.limits.rateLimits(rest);
			case "counters" -> this.limits.counter(rest);
			default -> null;
		});
	}

	/**
	 * {@code POST queues/{name}/redrive/{taskId}}: puts a dead task back at the head of its group.
	 * @return whether the task was dead and is queued again
	 */
	@WriteOperation
	public @Nullable Redriven redrive(@Selector String part, @Selector String name, @Selector String action,
			@Selector String taskId) {
		QueueEndpointPart queues = queuesFor(part, action, "redrive");
		return (queues != null) ? checked(() -> queues.redrive(name, taskId)) : null;
	}

	/**
	 * {@code DELETE queues/{name}/dead/{taskId}}: deletes a dead task for good.
	 * @return whether the task was dead and is gone now
	 */
	@DeleteOperation
	public @Nullable Discarded discard(@Selector String part, @Selector String name, @Selector String kind,
			@Selector String taskId) {
		QueueEndpointPart queues = queuesFor(part, kind, "dead");
		return (queues != null) ? checked(() -> queues.discard(name, taskId)) : null;
	}

	/** What {@code read} answers; a key or name Lockstep refuses is a bad request rather than a server error. */
	private static <T> T checked(Supplier<T> read) {
		try {
			return read.get();
		}
		catch (IllegalArgumentException | LockKeyException ex) {
			String reason = String.valueOf(ex.getMessage());
			throw new InvalidEndpointRequestException(reason, reason);
		}
	}

	/** The queues' part for a path {@code queues/{name}/<expected>/{taskId}}, or null for another path or without queues. */
	private @Nullable QueueEndpointPart queuesFor(String part, String action, String expected) {
		return ("queues".equals(part) && expected.equals(action)) ? this.queues : null;
	}

	/**
	 * The endpoint's root.
	 * @param instance this instance's id in lock owners ({@code null} with a lock service of the application's own)
	 * @param jobGuardInstance this instance's id in job runs and skips ({@code lockstep.instance-id})
	 * @param redisMode {@code standalone}, {@code sentinel} or {@code cluster}
	 * @param jobs the names of the jobs this instance guards
	 * @param locksLostRecently the locks this instance lost within {@code lossWindow}
	 * @param lossWindow how far back {@code locksLostRecently} looks
	 * @param queues the serial queues this instance runs tasks of
	 */
	public record Overview(@Nullable String instance, @Nullable String jobGuardInstance, String redisMode, List<String> jobs, @Nullable Integer locksLostRecently,
			@Nullable Duration lossWindow, List<String> queues) {
	}

	/**
	 * A serial queue this instance runs tasks of, with its counts from Redis.
	 * @param name the queue's name
	 * @param stats queued, running, dead, groups waiting
	 */
	public record QueueSummary(String name, QueueStats stats) {
	}

	/**
	 * Any serial queue by name, read from Redis.
	 * @param name the queue's name
	 * @param listenedHere whether this instance runs its tasks
	 * @param settings the lease, attempts, backoff and deduplication window it runs with here
	 * @param stats queued, running, dead, groups waiting
	 * @param busiestGroups the groups of up to 20 running tasks, of up to 20 whose lease ran out and
	 * the first 20 groups waiting for a worker, most tasks queued first (read without a scan, so a
	 * busy group waiting further back is not among them)
	 * @param deadLetters its oldest dead tasks, up to 20
	 */
	public record QueueDetail(String name, boolean listenedHere, SerialQueueRegistry.Settings settings,
			QueueStats stats, List<? extends SerialQueueRegistry.Group> busiestGroups, List<SerialTask> deadLetters) {
	}

	/**
	 * The answer to a redrive.
	 * @param queue the queue
	 * @param taskId the task
	 * @param redriven true if the task was dead and is queued again, false if it was not a dead task
	 */
	public record Redriven(String queue, String taskId, boolean redriven) {
	}

	/**
	 * The answer to a discard.
	 * @param queue the queue
	 * @param taskId the task
	 * @param discarded true if the task was dead and is gone now, false if it was not a dead task
	 */
	public record Discarded(String queue, String taskId, boolean discarded) {
	}

	/**
	 * A bounded counter.
	 * @param key the counter's key
	 * @param current its count now (0 if it was never incremented or expired)
	 */
	public record CounterState(String key, long current) {
	}

	/**
	 * What this instance holds and waits for.
	 * @param held the locks it holds, oldest first
	 * @param waiting its calls waiting in a queue, longest waiting first
	 */
	public record Locks(List<LockSnapshot.Held> held, List<LockSnapshot.Waiting> waiting) {
	}

	/**
	 * A job this instance guards.
	 * @param name the job's name, shared by every instance
	 * @param method the guarded method
	 * @param lockAtMostFor how long a run may hold the guard
	 * @param lockAtLeastFor how long a run keeps the guard at least
	 * @param cron its cron expression, or null for a job without one
	 * @param lastRun the last finished run on any instance
	 * @param lastSkip the last skipped firing on any instance, and why
	 * @param next its next cron slot and the instance elected or expected to run it (null without a cron)
	 */
	public record JobSummary(String name, String method, Duration lockAtMostFor, Duration lockAtLeastFor,
			@Nullable String cron, @Nullable JobRun lastRun, @Nullable JobSkip lastSkip, @Nullable JobNextSlot next) {
	}

	/**
	 * One job as recorded in Redis.
	 * @param name the job's name
	 * @param lastRun the last finished run on any instance
	 * @param lastSkip the last skipped firing on any instance, and why
	 * @param history the most recent finished runs, newest first
	 * @param members the instances seen alive for the job, most recently seen first
	 * @param elections the instance chosen for each recent cron slot, newest first, and who ran it
	 * @param next the next cron slot and the instance elected for it or, before its first firing
	 * reaches Redis, the one the rotation would choose now (null for a job without a cron, or one
	 * this instance does not guard)
	 */
	public record JobDetail(String name, @Nullable JobRun lastRun, @Nullable JobSkip lastSkip, List<JobRun> history,
			List<JobMember> members, List<JobElection> elections, @Nullable JobNextSlot next) {
	}

}
