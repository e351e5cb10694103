package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The next cron slot of a guarded job and the instance expected to run it. A slot is elected by
 * the first of its firings that reaches Redis; until then the instance is the one the rotation
 * rule would choose from what Redis holds now (among the instances seen alive that fire the job,
 * the one elected least recently), which a member joining, leaving or not firing may change.
 * @param job the guard name
 * @param scheduledTime the next slot by this instance's clock and the job's cron expression
 * @param expectedInstance the instance expected to run it, or null when no instance qualifies yet
 * @param elected whether the slot is elected already (then {@code expectedInstance} is the choice)
 */
public record JobNextSlot(String job, Instant scheduledTime, @Nullable String expectedInstance, boolean elected) {
}
