package dev.lockstep.autoconfigure.actuate;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.lockstep.Counters;
import dev.lockstep.GuardedJob;
import dev.lockstep.JobElection;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobMember;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockSnapshot;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialTask;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.QueueGroup;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.queue.RedisSerialQueue;
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
 * Reading costs Redis a few {@code GET}/{@code LRANGE} calls per job, one read-only script per key
 * asked for or waited on; nothing scans the key space.
 * <p>
 * Read-only unless the application says otherwise: the operations that change Redis (a dead task's
 * redrive, {@code POST}, and discard, {@code DELETE}) are there only with
 * {@code management.endpoint.lockstep.access=unrestricted}.
 */
@Endpoint(id = "lockstep", defaultAccess = Access.READ_ONLY)
public final class LockstepEndpoint {

	private final @Nullable String instanceId;

	private final String redisMode;

	private final @Nullable JobGuardRegistry jobGuard;

	private final @Nullable RecentLockLosses losses;

	private final @Nullable RedisLockService locks;

	private final @Nullable RedisSerialQueue queues;

	private @Nullable RedisRateLimiter rateLimiter;

	private @Nullable Counters counters;

	/** How many dead letters {@code queues/{name}} shows. */
	static final int DEAD_LETTERS_SHOWN = 20;

	/** How many running and waiting groups {@code queues/{name}} reads, of each. */
	static final int GROUPS_SHOWN = 20;

	/**
	 * @param instanceId the lock service's instance id, or null
	 * @param redisMode {@code standalone}, {@code sentinel} or {@code cluster}
	 * @param jobGuard the job records, or null without a job guard
	 * @param losses the locks lost recently, or null
	 * @param locks Lockstep's lock service, or null for a lock service of the application's own
	 */
	public LockstepEndpoint(@Nullable String instanceId, String redisMode, @Nullable JobGuardRegistry jobGuard,
			@Nullable RecentLockLosses losses, @Nullable RedisLockService locks) {
		this(instanceId, redisMode, jobGuard, losses, locks, null);
	}

	/**
	 * With the serial queues' views.
	 * @param queues Lockstep's serial queue, or null without one
	 */
	public LockstepEndpoint(@Nullable String instanceId, String redisMode, @Nullable JobGuardRegistry jobGuard,
			@Nullable RecentLockLosses losses, @Nullable RedisLockService locks, @Nullable RedisSerialQueue queues) {
		this.queues = queues;
		this.locks = locks;
		this.instanceId = instanceId;
		this.redisMode = redisMode;
		this.jobGuard = jobGuard;
		this.losses = losses;
	}

	/** Adds the rate-limit and counter views; either may be null (not there, or the application's own). */
	void limits(@Nullable RedisRateLimiter rateLimiter, @Nullable Counters counters) {
		this.rateLimiter = rateLimiter;
		this.counters = counters;
	}

	@ReadOperation
	public Overview overview() {
		List<String> jobs = (this.jobGuard != null) ? this.jobGuard.jobs().stream().map(GuardedJob::name).toList()
				: List.of();
		Integer lost = (this.losses != null) ? this.losses.losses().size() : null;
		return new Overview(this.instanceId, (this.jobGuard != null) ? this.jobGuard.instanceId() : null,
				this.redisMode, jobs, lost,
				(this.losses != null) ? this.losses.window() : null,
				(this.queues != null) ? this.queues.listenedQueues() : List.of());
	}

	/**
	 * {@code locks}, {@code locks/{key}}, {@code permits/{key}}, {@code jobs}, {@code jobs/{name}},
	 * {@code queues}, {@code queues/{name}}, {@code ratelimits}, {@code ratelimits/{key}} or
	 * {@code counters/{key}}; anything else is not found.
	 */
	@ReadOperation
	public @Nullable Object part(@Selector(match = Match.ALL_REMAINING) String... path) {
		if (path.length > 0 && "ratelimits".equals(path[0]) && this.rateLimiter != null) {
			return (path.length == 1) ? this.rateLimiter.recentKeys()
					: this.rateLimiter.keyState(String.join("/", Arrays.copyOfRange(path, 1, path.length)));
		}
		if (path.length > 1 && "counters".equals(path[0]) && this.counters != null) {
			String key = String.join("/", Arrays.copyOfRange(path, 1, path.length));
			return new CounterState(key, this.counters.current(key));
		}
		if (path.length > 0 && "queues".equals(path[0]) && this.queues != null) {
			return queuePart(this.queues, Arrays.copyOfRange(path, 1, path.length));
		}
		if (path.length > 1 && "permits".equals(path[0]) && this.locks != null) {
			return this.locks.permitState(String.join("/", Arrays.copyOfRange(path, 1, path.length)));
		}
		if (path.length > 0 && "locks".equals(path[0]) && this.locks != null) {
			if (path.length == 1) {
				return new Locks(this.locks.heldLocks(), this.locks.waitingCalls());
			}
			return this.locks.keyState(String.join("/", Arrays.copyOfRange(path, 1, path.length)));
		}
		if (path.length == 0 || !"jobs".equals(path[0]) || this.jobGuard == null) {
			return null;
		}
		if (path.length == 1) {
			return this.jobGuard.jobs().stream().map(this::summary).toList();
		}
		String name = String.join("/", Arrays.copyOfRange(path, 1, path.length));
		JobGuardRegistry registry = this.jobGuard;
		JobDetail detail = new JobDetail(name, registry.lastRun(name).orElse(null), registry.lastSkip(name).orElse(null),
				registry.history(name), registry.members(name), registry.elections(name),
				registry.nextSlot(name).orElse(null));
		// a name neither guarded here nor known to Redis is a typo, not an idle job: not found
		boolean known = registry.jobs().stream().anyMatch((job) -> job.name().equals(name)) || detail.lastRun() != null
				|| detail.lastSkip() != null || !detail.history().isEmpty() || !detail.members().isEmpty();
		return known ? detail : null;
	}

	private static Object queuePart(RedisSerialQueue queues, String[] path) {
		if (path.length == 0) {
			return queues.listenedQueues().stream().map((name) -> new QueueSummary(name, queues.stats(name))).toList();
		}
		String name = String.join("/", path);
		boolean listened = queues.listenedQueues().contains(name);
		QueueStats stats = queues.stats(name);
		// a queue nobody listens to here, that has no settings of its own and holds no task, is a typo: not found
		if (!listened && !queues.hasOwnSettings(name) && stats.equals(new QueueStats(0, 0, 0, 0))) {
			return null;
		}
		return new QueueDetail(name, listened, queues.settings(name), stats, queues.busiestGroups(name, GROUPS_SHOWN),
				queues.deadLetters(name, DEAD_LETTERS_SHOWN));
	}

	/**
	 * {@code POST queues/{name}/redrive/{taskId}}: puts a dead task back at the head of its group.
	 * @return whether the task was dead and is queued again
	 */
	@WriteOperation
	public @Nullable Redriven redrive(@Selector String part, @Selector String name, @Selector String action,
			@Selector String taskId) {
		if (this.queues == null || !"queues".equals(part) || !"redrive".equals(action)) {
			return null;
		}
		return new Redriven(name, taskId, this.queues.redrive(name, taskId));
	}

	/**
	 * {@code DELETE queues/{name}/dead/{taskId}}: deletes a dead task for good.
	 * @return whether the task was dead and is gone now
	 */
	@DeleteOperation
	public @Nullable Discarded discard(@Selector String part, @Selector String name, @Selector String kind,
			@Selector String taskId) {
		if (this.queues == null || !"queues".equals(part) || !"dead".equals(kind)) {
			return null;
		}
		return new Discarded(name, taskId, this.queues.discard(name, taskId));
	}

	private JobSummary summary(GuardedJob job) {
		JobGuardRegistry registry = this.jobGuard;
		return new JobSummary(job.name(), job.method(), job.lockAtMostFor(), job.lockAtLeastFor(), job.cron(),
				(registry != null) ? registry.lastRun(job.name()).orElse(null) : null,
				(registry != null) ? registry.lastSkip(job.name()).orElse(null) : null,
				(registry != null) ? registry.nextSlot(job.name()).orElse(null) : null);
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
	public record QueueDetail(String name, boolean listenedHere, QueueSettings settings, QueueStats stats,
			List<QueueGroup> busiestGroups, List<SerialTask> deadLetters) {
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
