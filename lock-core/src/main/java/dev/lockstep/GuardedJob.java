package dev.lockstep;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A job this instance guards.
 * @param name the guard name
 * @param method the guarded method, as {@code SimpleClassName.method(ParameterTypes)}
 * @param lockAtMostFor how long a runner that died keeps the guard
 * @param lockAtLeastFor the least time a run keeps the guard after it starts
 * @param cron the cron expression of its {@code @Scheduled} annotation (placeholders resolved), or
 * null when it has none (fixed-rate, fixed-delay, or called on demand)
 * @param zone the time zone of that cron expression, or null for the JVM's default
 */
public record GuardedJob(String name, String method, Duration lockAtMostFor, Duration lockAtLeastFor,
		@Nullable String cron, @Nullable String zone) {

	/** A job without a cron schedule. */
	public GuardedJob(String name, String method, Duration lockAtMostFor, Duration lockAtLeastFor) {
		this(name, method, lockAtMostFor, lockAtLeastFor, null, null);
	}

}
