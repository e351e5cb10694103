package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The job guard's SPI: what every firing of a guarded job goes through. The {@code @JobGuard}
 * interceptor hands each firing to it; it runs the body if this instance wins the firing and
 * returns without running it otherwise. Lockstep's {@code RedisJobGuard} is the implementation
 * that the auto-configuration registers; an application's own {@code JobGuardExecutor} bean is used
 * instead when there is one (Lockstep's then stays only as a fallback and for the run records).
 */
@FunctionalInterface
public interface JobGuardExecutor {

	/**
	 * Runs one firing of {@code job}, or not.
	 * @param job the guarded job
	 * @param cronSlot the cron slot of this firing (the time a cron trigger computed for it, the
	 * same on every instance), or null for a firing without one (fixed rate or delay, a direct call)
	 * @param body the guarded method
	 * @param retry the same method once more, to run later if this firing is left to an instance
	 * that never starts it; null when the method cannot be called again
	 * @return what the body returned, or null when it did not run here
	 * @throws Throwable what the body threw
	 */
	@Nullable Object execute(GuardedJob job, @Nullable Instant cronSlot, Body body, @Nullable Body retry) throws Throwable;

	/** The guarded method's body. */
	@FunctionalInterface
	interface Body {

		@Nullable Object run() throws Throwable;

	}

}
