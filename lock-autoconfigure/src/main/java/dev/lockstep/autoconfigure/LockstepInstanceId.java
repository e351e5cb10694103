package dev.lockstep.autoconfigure;

import dev.lockstep.internal.NamingRules;

/**
 * The name of this instance of the application, one for its locks, job guard and serial queues:
 * {@code lockstep.instance-id}, else the deprecated {@code lockstep.job-guard.instance-id} (both set
 * to different values fail the binding of {@link LockstepProperties}), else one drawn once per
 * application context (host name, process id and three random characters).
 * @param value the name
 */
public record LockstepInstanceId(String value) {

	/** The name the properties give, or a new one. */
	public static LockstepInstanceId of(LockstepProperties properties) {
		String configured = properties.configuredInstanceId();
		return new LockstepInstanceId((configured != null) ? configured : NamingRules.defaultInstanceId());
	}

}
