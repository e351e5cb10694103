package dev.lockstep;

import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.ThreadScoped;

/**
 * The firing of a {@code @JobGuard} job that the current thread is running: read it inside the
 * guarded method to record which slot this run is for.
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 0 7 * * *")
 * &#64;JobGuard
 * void dailyPush() {
 *     JobFiring firing = JobFiring.current().orElseThrow();
 *     pushes.sendFor(firing.slot(), firing.token());
 * }
 * </pre>
 *
 * @param job the job's name
 * @param slot the cron slot this run is for (the time the cron trigger computed, the same on every
 * instance), or {@code null} for a fixed-rate, fixed-delay or on-demand run
 * @param instance this instance's id ({@code lockstep.instance-id})
 * @param attempt 1 for a run on this instance's own firing; 2 and up for a takeover of a slot its
 * chosen instance never started (the number of claims this instance made for the slot)
 * @param token the run's fencing token, larger than every earlier run's of the same job
 */
public record JobFiring(String job, @Nullable Instant slot, String instance, int attempt, long token) {

	/** The guarded run the current thread is in, if any. */
	public static Optional<JobFiring> current() {
		return Optional.ofNullable(ThreadScoped.of(JobFiring.class).current());
	}

	/** Whether this run is a takeover of a slot left to another instance. */
	public boolean takeover() {
		return this.attempt > 1;
	}

}
