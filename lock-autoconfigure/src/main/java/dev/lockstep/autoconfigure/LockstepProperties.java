package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;

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

	@NestedConfigurationProperty
	private final LockProperties lock = new LockProperties();

	@NestedConfigurationProperty
	private final SerialGroupProperties serialGroup = new SerialGroupProperties();

	@NestedConfigurationProperty
	private final JobGuardProperties jobGuard = new JobGuardProperties();

	@NestedConfigurationProperty
	private final QueueProperties queue = new QueueProperties();

	@NestedConfigurationProperty
	private final CountersProperties counters = new CountersProperties();

	@NestedConfigurationProperty
	private final RateLimitProperties rateLimit = new RateLimitProperties();

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
		return (this.instanceId != null) ? this.instanceId : this.jobGuard.instanceIdAlias();
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

	public LockProperties getLock() {
		return this.lock;
	}

	public SerialGroupProperties getSerialGroup() {
		return this.serialGroup;
	}

	public JobGuardProperties getJobGuard() {
		return this.jobGuard;
	}

	public QueueProperties getQueue() {
		return this.queue;
	}

	public CountersProperties getCounters() {
		return this.counters;
	}

	public RateLimitProperties getRateLimit() {
		return this.rateLimit;
	}

}
