package dev.lockstep.autoconfigure;

import java.time.Duration;

import dev.lockstep.internal.DurationRules;

/**
 * Settings of {@code @DistributedLock} and the {@code LockService}.
 */
public class LockProperties {

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
