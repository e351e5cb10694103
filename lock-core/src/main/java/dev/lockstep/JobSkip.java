package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The last firing of a guarded job that an instance left alone.
 * @param job the guard name
 * @param instance the instance that skipped
 * @param at when (Redis server clock)
 * @param scheduledTime the cron slot of the firing, or null for jobs without one
 * @param reason why, for example "held by host-a-4711-x3f"
 */
public record JobSkip(String job, String instance, Instant at, @Nullable Instant scheduledTime, String reason) {
}
