package dev.lockstep;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run of a guarded job, as recorded in Redis (times from the Redis server's clock).
 * @param job the guard name
 * @param instance the instance that ran it
 * @param scheduledTime the cron slot of the firing, or null for jobs without one
 * @param start when the run started
 * @param end when the run ended
 * @param succeeded whether the run returned normally
 * @param exception the class of the exception the run threw, or null
 */
public record JobRun(String job, String instance, @Nullable Instant scheduledTime, Instant start, Instant end,
		boolean succeeded, @Nullable String exception) {

	/** How long the run took. */
	public Duration duration() {
		return Duration.between(this.start, this.end);
	}

}
