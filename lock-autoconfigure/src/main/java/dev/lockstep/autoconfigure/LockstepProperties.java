package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.util.unit.DataSize;

import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.counter.RedisCounters;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.ratelimit.WhenUnavailable;

/**
 * Lockstep settings, under {@code lockstep}. Invalid values stop startup with a message naming
 * the property and the value.
 */
@ConfigurationProperties("lockstep")
public class LockstepProperties {

	/**
	 * Whether Lockstep is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel Lockstep writes.
	 */
	private String keyPrefix = NamingRules.DEFAULT_KEY_PREFIX;

	/**
	 * Name of this instance of the application, the same for its locks, job guard and serial queues
	 * (in owner ids, run records, skip reasons and the actuator's views); defaults to host name,
	 * process id and three random characters. Must differ between instances running at once.
	 */
	private @Nullable String instanceId;

	/**
	 * Order of the advisor that applies @DistributedLock and @SerialGroup. The default places it just
	 * outside the transaction advisor, so a transaction commits before its lock is released.
	 */
	private int advisorOrder = LockAnnotationAdvisor.DEFAULT_ORDER;

	/**
	 * Longest wait for one Redis reply before a lock operation fails with LockUnavailableException.
	 */
	private Duration commandTimeout = Duration.ofSeconds(5);

	/**
	 * How often an instance renews due leases and visits the locks it waits for. A waiting instance
	 * that misses five heartbeats is dropped from the queues.
	 */
	private Duration heartbeatInterval = Duration.ofMillis(500);

	private final Lock lock = new Lock();

	private final SerialGroup serialGroup = new SerialGroup();

	private final JobGuard jobGuard = new JobGuard();

	private final Queue queue = new Queue();

	private final Counters counters = new Counters();

	private final RateLimit rateLimit = new RateLimit();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("lockstep.key-prefix", keyPrefix);
	}

	public @Nullable String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(@Nullable String instanceId) {
		this.instanceId = (instanceId != null) ? NamingRules.instanceId("lockstep.instance-id", instanceId) : null;
	}

	/**
	 * This instance's name: {@code lockstep.instance-id}, else the deprecated
	 * {@code lockstep.job-guard.instance-id}, else null (the auto-configuration draws one).
	 */
	public @Nullable String configuredInstanceId() {
		return (this.instanceId != null) ? this.instanceId : this.jobGuard.instanceId;
	}

	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("lockstep.command-timeout", commandTimeout);
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = DurationRules.atLeast("lockstep.heartbeat-interval", heartbeatInterval,
				DurationRules.SHORTEST_HEARTBEAT);
	}

	public Lock getLock() {
		return this.lock;
	}

	public SerialGroup getSerialGroup() {
		return this.serialGroup;
	}

	public JobGuard getJobGuard() {
		return this.jobGuard;
	}

	public Queue getQueue() {
		return this.queue;
	}

	public Counters getCounters() {
		return this.counters;
	}

	public RateLimit getRateLimit() {
		return this.rateLimit;
	}

	/**
	 * Settings of the {@code Counters} bean.
	 */
	public static class Counters {

		/**
		 * Whether the Counters bean is created.
		 */
		private boolean enabled = true;

		/**
		 * How long an idempotency id of Counters.tryIncrement is remembered: a call with the same id
		 * within it changes nothing and answers as the first did.
		 */
		private Duration idempotencyWindow = RedisCounters.DEFAULT_IDEMPOTENCY_WINDOW;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getIdempotencyWindow() {
			return this.idempotencyWindow;
		}

		public void setIdempotencyWindow(Duration idempotencyWindow) {
			this.idempotencyWindow = DurationRules.positive("lockstep.counters.idempotency-window", idempotencyWindow);
		}

	}

	/**
	 * Settings of the {@code RateLimiter} bean and {@code @RateLimited}.
	 */
	public static class RateLimit {

		/**
		 * Whether the RateLimiter bean is created and @RateLimited applied.
		 */
		private boolean enabled = true;

		/**
		 * What a rate-limited call gets while Redis cannot be reached or fails: 'refuse' fails it with
		 * LockUnavailableException, 'allow' lets it through and logs a warning (at most every 10s).
		 */
		private WhenUnavailable whenUnavailable = WhenUnavailable.REFUSE;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public WhenUnavailable getWhenUnavailable() {
			return this.whenUnavailable;
		}

		public void setWhenUnavailable(WhenUnavailable whenUnavailable) {
			this.whenUnavailable = whenUnavailable;
		}

	}

	/**
	 * Settings of {@code @DistributedLock} and the {@code LockService}.
	 */
	public static class Lock {

		/**
		 * How long @DistributedLock methods that set no waitTime wait for their lock; 0 means a single attempt.
		 */
		private Duration waitTime = Duration.ofSeconds(5);

		/**
		 * Lease of locks without an explicit lease, renewed by the watchdog every third of it while held;
		 * a holder that dies frees its lock within this time.
		 */
		private Duration leaseTime = Duration.ofSeconds(30);

		/**
		 * How long stopping the application keeps renewing locks still held while their holders finish;
		 * locks held after it are reported lost (LockLostEvent) and free themselves within their lease.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(10);

		/**
		 * How many replicas must acknowledge an acquisition (Redis WAIT, for up to half the command timeout)
		 * before it counts; not acknowledged in time means not acquired. Narrows the window in which a
		 * failover loses a lock just taken. 0 does not wait. Standalone and Sentinel only.
		 */
		private int replicaAcknowledgements;

		public int getReplicaAcknowledgements() {
			return this.replicaAcknowledgements;
		}

		public void setReplicaAcknowledgements(int replicaAcknowledgements) {
			if (replicaAcknowledgements < 0) {
				throw new IllegalArgumentException(
						"lockstep.lock.replica-acknowledgements must not be negative, was " + replicaAcknowledgements);
			}
			this.replicaAcknowledgements = replicaAcknowledgements;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = DurationRules.notNegative("lockstep.lock.shutdown-timeout", shutdownTimeout);
		}

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = DurationRules.notNegative("lockstep.lock.wait-time", waitTime);
		}

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = DurationRules.renewedLease("lockstep.lock.lease-time", leaseTime);
		}

	}

	/**
	 * Settings of {@code @SerialGroup} and {@code SerialGroups}.
	 */
	public static class SerialGroup {

		/**
		 * How long @SerialGroup calls that set no waitTime wait for their turn.
		 */
		private Duration waitTime = Duration.ofSeconds(60);

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = DurationRules.notNegative("lockstep.serial-group.wait-time", waitTime);
		}

	}

	/**
	 * Settings of {@code @JobGuard}.
	 */
	public static class JobGuard {

		/**
		 * Whether the job guard is enabled.
		 */
		private boolean enabled = true;

		/**
		 * How long a runner that died keeps a job's guard, for jobs that set no lockAtMostFor. A live run
		 * renews its guard.
		 */
		private Duration lockAtMostFor = Duration.ofMinutes(10);

		/**
		 * The least time a run keeps its guard after it starts, for jobs that set no lockAtLeastFor.
		 */
		private Duration lockAtLeastFor = Duration.ZERO;

		/**
		 * Whether every @Scheduled method is guarded, also without @JobGuard (named SimpleClassName.methodName).
		 */
		private boolean guardAllScheduled = false;

		/**
		 * How long the instance that fires a cron job first waits for the instance chosen to run it (the one
		 * that ran it least recently) before running it itself; also how long a chosen instance that finds the
		 * guard held tries again every 100-250 ms (every second after that). Keep it above the clock skew
		 * between instances.
		 */
		private Duration skewTolerance = Duration.ofSeconds(10);

		/**
		 * How long shutdown waits for running guarded jobs to finish and give up their guards before the Redis
		 * connection closes.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * Id of this instance in run records and skip reasons.
		 */
		private @Nullable String instanceId;

		/**
		 * Scope of job guards: jobs of one name share a guard only within one scope. Defaults to
		 * spring.application.name, so that two services with a job of the same name do not skip each
		 * other's firings; set the same value in services that are meant to share their guards, or an
		 * empty value for one scope across every service on this Redis.
		 */
		private @Nullable String scope;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getLockAtMostFor() {
			return this.lockAtMostFor;
		}

		public void setLockAtMostFor(Duration lockAtMostFor) {
			this.lockAtMostFor = DurationRules.renewedLease("lockstep.job-guard.lock-at-most-for", lockAtMostFor);
		}

		public Duration getLockAtLeastFor() {
			return this.lockAtLeastFor;
		}

		public void setLockAtLeastFor(Duration lockAtLeastFor) {
			this.lockAtLeastFor = DurationRules.notNegative("lockstep.job-guard.lock-at-least-for", lockAtLeastFor);
		}

		public boolean isGuardAllScheduled() {
			return this.guardAllScheduled;
		}

		public void setGuardAllScheduled(boolean guardAllScheduled) {
			this.guardAllScheduled = guardAllScheduled;
		}

		public Duration getSkewTolerance() {
			return this.skewTolerance;
		}

		public void setSkewTolerance(Duration skewTolerance) {
			this.skewTolerance = DurationRules.notNegative("lockstep.job-guard.skew-tolerance", skewTolerance);
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = DurationRules.notNegative("lockstep.job-guard.shutdown-timeout", shutdownTimeout);
		}

		@Deprecated(since = "0.2.0", forRemoval = false)
		@DeprecatedConfigurationProperty(replacement = "lockstep.instance-id",
				reason = "One instance id now names the instance for locks, job guards and serial queues alike", since = "0.2.0")
		public @Nullable String getInstanceId() {
			return this.instanceId;
		}

		public @Nullable String getScope() {
			return this.scope;
		}

		public void setScope(@Nullable String scope) {
			this.scope = (scope != null) ? NamingRules.insideHashTag("lockstep.job-guard.scope", scope) : null;
		}

		@Deprecated(since = "0.2.0", forRemoval = false)
		public void setInstanceId(@Nullable String instanceId) {
			this.instanceId = (instanceId != null) ? NamingRules.instanceId("lockstep.job-guard.instance-id", instanceId)
					: null;
		}

	}

	/**
	 * Settings of serial queues ({@code SerialQueue} and {@code @SerialQueueListener}).
	 */
	public static class Queue {

		/**
		 * Whether serial queues are enabled.
		 */
		private boolean enabled = true;

		/**
		 * Lease of a running task, renewed every third of it while the task runs; a task whose instance
		 * dies runs again after this time.
		 */
		private Duration leaseTime = Duration.ofSeconds(30);

		/**
		 * How many times a task is started before it goes to the dead letters (failed attempts, and
		 * attempts cut short by a crash or a shutdown).
		 */
		private int maxAttempts = 3;

		/**
		 * Wait before the first retry of a failed task, doubled for each further retry; the task's group
		 * waits with it.
		 */
		private Duration retryBackoff = Duration.ofSeconds(1);

		/**
		 * How long a deduplication id is remembered, and a done task can still be read.
		 */
		private Duration deduplicationWindow = Duration.ofMinutes(10);

		/**
		 * How long a stopping instance lets its running tasks finish; tasks still running then are given
		 * back to run on another instance.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * Largest payload a task may have, as JSON; a larger one is refused before anything is stored.
		 */
		private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

		/**
		 * Settings of particular queues, by queue name; what a queue does not set comes from the settings
		 * above.
		 */
		private Map<String, QueueOverrides> queues = new LinkedHashMap<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = DurationRules.renewedLease("lockstep.queue.lease-time", leaseTime);
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = atLeastOne("lockstep.queue.max-attempts", maxAttempts);
		}

		public Duration getRetryBackoff() {
			return this.retryBackoff;
		}

		public void setRetryBackoff(Duration retryBackoff) {
			this.retryBackoff = DurationRules.notNegative("lockstep.queue.retry-backoff", retryBackoff);
		}

		public Duration getDeduplicationWindow() {
			return this.deduplicationWindow;
		}

		public void setDeduplicationWindow(Duration deduplicationWindow) {
			this.deduplicationWindow = DurationRules.atLeast("lockstep.queue.deduplication-window", deduplicationWindow,
					DurationRules.SHORTEST_DEDUPLICATION_WINDOW);
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = DurationRules.notNegative("lockstep.queue.shutdown-timeout", shutdownTimeout);
		}

		public DataSize getMaxPayloadSize() {
			return this.maxPayloadSize;
		}

		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			if (maxPayloadSize.toBytes() <= 0) {
				throw new IllegalArgumentException("lockstep.queue.max-payload-size must be positive, was " + maxPayloadSize);
			}
			this.maxPayloadSize = maxPayloadSize;
		}

		public Map<String, QueueOverrides> getQueues() {
			return this.queues;
		}

		public void setQueues(Map<String, QueueOverrides> queues) {
			this.queues = queues;
		}

		/** The settings of {@code queue}: its own where it sets them, the defaults above otherwise. */
		public QueueSettings settings(String queue) {
			QueueOverrides own = this.queues.get(queue);
			if (own == null) {
				return defaults();
			}
			String at = "lockstep.queue.queues." + queue + ".";
			return new QueueSettings(
					(own.getLeaseTime() != null) ? DurationRules.renewedLease(at + "lease-time", own.getLeaseTime())
							: this.leaseTime,
					(own.getMaxAttempts() != null) ? atLeastOne(at + "max-attempts", own.getMaxAttempts()) : this.maxAttempts,
					(own.getRetryBackoff() != null) ? DurationRules.notNegative(at + "retry-backoff", own.getRetryBackoff())
							: this.retryBackoff,
					(own.getDeduplicationWindow() != null)
							? DurationRules.atLeast(at + "deduplication-window", own.getDeduplicationWindow(),
									DurationRules.SHORTEST_DEDUPLICATION_WINDOW)
							: this.deduplicationWindow);
		}

		/** The settings of queues without settings of their own. */
		public QueueSettings defaults() {
			return new QueueSettings(this.leaseTime, this.maxAttempts, this.retryBackoff, this.deduplicationWindow);
		}

		private static int atLeastOne(String property, int value) {
			if (value < 1) {
				throw new IllegalArgumentException(property + " must be at least 1, was " + value);
			}
			return value;
		}

	}

	/**
	 * Settings of one serial queue, under {@code lockstep.queue.queues.<name>}; each left unset comes
	 * from {@code lockstep.queue}.
	 */
	public static class QueueOverrides {

		/**
		 * Lease of a running task of this queue.
		 */
		private @Nullable Duration leaseTime;

		/**
		 * How many times a task of this queue is started before it goes to the dead letters.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * Wait before the first retry of a failed task of this queue, doubled for each further retry.
		 */
		private @Nullable Duration retryBackoff;

		/**
		 * How long a deduplication id of this queue is remembered.
		 */
		private @Nullable Duration deduplicationWindow;

		public @Nullable Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(@Nullable Duration leaseTime) {
			this.leaseTime = leaseTime;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable Duration getRetryBackoff() {
			return this.retryBackoff;
		}

		public void setRetryBackoff(@Nullable Duration retryBackoff) {
			this.retryBackoff = retryBackoff;
		}

		public @Nullable Duration getDeduplicationWindow() {
			return this.deduplicationWindow;
		}

		public void setDeduplicationWindow(@Nullable Duration deduplicationWindow) {
			this.deduplicationWindow = deduplicationWindow;
		}

	}

}
