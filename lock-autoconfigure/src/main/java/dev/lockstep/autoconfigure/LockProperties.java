package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.internal.DurationRules;

/**
 * Settings of {@code @DistributedLock} and the {@code LockService}.
 *
 * @param waitTime How long @DistributedLock methods that set no waitTime wait for their lock; 0 means a
 * single attempt.
 * @param leaseTime Lease of locks without an explicit lease, renewed by the watchdog every third of it
 * while held; a holder that dies frees its lock within this time.
 * @param shutdownTimeout How long stopping the application keeps renewing locks still held while their
 * holders finish; locks held after it are reported lost (LockLostEvent) and free themselves within
 * their lease.
 * @param replicaAcknowledgements How many replicas must acknowledge an acquisition (Redis WAIT, for up
 * to half the command timeout) before it counts; not acknowledged in time means not acquired. Narrows
 * the window in which a failover loses a lock just taken. 0 does not wait. Standalone and Sentinel
 * only.
 */
public record LockProperties(@DefaultValue("5s") Duration waitTime, @DefaultValue("30s") Duration leaseTime,
		@DefaultValue("10s") Duration shutdownTimeout, int replicaAcknowledgements) {

	/** Checks each setting, naming its property when one is out of range. */
	public LockProperties {
		DurationRules.notNegative("lockstep.lock.wait-time", waitTime);
		DurationRules.renewedLease("lockstep.lock.lease-time", leaseTime);
		DurationRules.notNegative("lockstep.lock.shutdown-timeout", shutdownTimeout);
		if (replicaAcknowledgements < 0) {
			throw new IllegalArgumentException(
					"lockstep.lock.replica-acknowledgements must not be negative, was " + replicaAcknowledgements);
		}
	}

}
