package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.StringUtils;

import dev.lockstep.annotation.LockAnnotationAdvisor;

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
	private String keyPrefix = "lockstep:";

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
		if (!StringUtils.hasText(keyPrefix) || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("lockstep.key-prefix must be non-blank and free of '{' and '}', was '"
					+ keyPrefix + "'");
		}
		this.keyPrefix = keyPrefix;
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
		this.commandTimeout = atLeast("lockstep.command-timeout", commandTimeout, Duration.ofMillis(1));
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = atLeast("lockstep.heartbeat-interval", heartbeatInterval, Duration.ofMillis(10));
	}

	public Lock getLock() {
		return this.lock;
	}

	public SerialGroup getSerialGroup() {
		return this.serialGroup;
	}

	static Duration atLeast(String property, Duration value, Duration minimum) {
		if (value.compareTo(minimum) < 0) {
			throw new IllegalArgumentException(property + " must be at least " + minimum.toMillis() + "ms, was " + value.toMillis() + "ms");
		}
		return value;
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

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = atLeast("lockstep.lock.wait-time", waitTime, Duration.ZERO);
		}

		public Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(Duration leaseTime) {
			this.leaseTime = atLeast("lockstep.lock.lease-time", leaseTime, Duration.ofSeconds(1));
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
			this.waitTime = atLeast("lockstep.serial-group.wait-time", waitTime, Duration.ZERO);
		}

	}

}
