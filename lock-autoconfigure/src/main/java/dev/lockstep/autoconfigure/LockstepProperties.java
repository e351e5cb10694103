package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;

/**
 * Lockstep settings, under {@code lockstep}. Invalid values stop startup with a message naming
 * the property and the value.
 *
 * @param enabled Whether Lockstep is enabled.
 * @param keyPrefix Prefix of every Redis key and channel Lockstep writes.
 * @param instanceId Name of this instance of the application, the same for its locks, job guard and
 * serial queues (in owner ids, run records, skip reasons and the actuator's views); defaults to host
 * name, process id and three random characters. Must differ between instances running at once.
 * @param advisorOrder Order of the advisor that applies @DistributedLock and @SerialGroup. The default
 * places it just outside the transaction advisor, so a transaction commits before its lock is
 * released.
 * @param commandTimeout Longest wait for one Redis reply before a lock operation fails with
 * LockUnavailableException.
 * @param heartbeatInterval How often an instance renews due leases and visits the locks it waits for. A
 * waiting instance that misses five heartbeats is dropped from the queues.
 * @param lock settings of {@code @DistributedLock}, under {@code lockstep.lock}
 * @param serialGroup settings of {@code @SerialGroup}, under {@code lockstep.serial-group}
 * @param jobGuard settings of {@code @JobGuard}, under {@code lockstep.job-guard}
 * @param queue settings of serial queues, under {@code lockstep.queue}
 * @param counters settings of the counters, under {@code lockstep.counters}
 * @param rateLimit settings of the rate limiter, under {@code lockstep.rate-limit}
 */
@ConfigurationProperties("lockstep")
public record LockstepProperties(@DefaultValue("true") boolean enabled,
		@DefaultValue(NamingRules.DEFAULT_KEY_PREFIX) String keyPrefix,
		@Nullable String instanceId, @DefaultValue("" + LockAnnotationAdvisor.DEFAULT_ORDER) int advisorOrder,
		@DefaultValue("5s") Duration commandTimeout, @DefaultValue("500ms") Duration heartbeatInterval,
		@DefaultValue @NestedConfigurationProperty LockProperties lock,
		@DefaultValue @NestedConfigurationProperty SerialGroupProperties serialGroup,
		@DefaultValue @NestedConfigurationProperty JobGuardProperties jobGuard,
		@DefaultValue @NestedConfigurationProperty QueueProperties queue,
		@DefaultValue @NestedConfigurationProperty CountersProperties counters,
		@DefaultValue @NestedConfigurationProperty RateLimitProperties rateLimit) {

	/** Checks each setting, naming its property when one is out of range or malformed. */
	public LockstepProperties {
		NamingRules.keyPrefix("lockstep.key-prefix", keyPrefix);
		if (instanceId != null) {
			NamingRules.instanceId("lockstep.instance-id", instanceId);
			String alias = jobGuard.instanceIdAlias();
			if (alias != null && !alias.equals(instanceId)) {
				// one of the two would be dropped without a word: the instance would not be named as its operator thinks
				throw new IllegalArgumentException("lockstep.instance-id ('" + instanceId + "') and its deprecated alias "
						+ "lockstep.job-guard.instance-id ('" + alias + "') are both set, to different values; set "
						+ "lockstep.instance-id only");
			}
		}
		DurationRules.positive("lockstep.command-timeout", commandTimeout);
		DurationRules.atLeast("lockstep.heartbeat-interval", heartbeatInterval, DurationRules.SHORTEST_HEARTBEAT);
		// checked here, not when the lock service starts, so that it stops startup as the other settings do
		DurationRules.heartbeatUnderAThirdOfLease("lockstep.heartbeat-interval", heartbeatInterval,
				"lockstep.lock.lease-time", lock.leaseTime());
	}

	/**
	 * This instance's name: {@code lockstep.instance-id}, else the deprecated
	 * {@code lockstep.job-guard.instance-id}, else null (the auto-configuration draws one). Both set
	 * to different values fail the binding.
	 * @return the name configured, or null
	 */
	public @Nullable String configuredInstanceId() {
		return (this.instanceId != null) ? this.instanceId : this.jobGuard.instanceIdAlias();
	}

}
