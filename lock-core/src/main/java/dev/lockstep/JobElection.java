package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The instance chosen to run one cron slot of a guarded job. A slot is elected by the first of
 * its firings that reaches Redis, so the choice is known from then on, not before.
 * @param job the guard name
 * @param scheduledTime the cron slot
 * @param chosenInstance the instance chosen to run it
 * @param ranOn the instance that ran it (the chosen one, or another one that took it over); null
 * while it has not run, and when its chosen instance gave it up because an earlier slot's run still
 * held the guard a whole period later (a job longer than its period)
 */
public record JobElection(String job, Instant scheduledTime, String chosenInstance, @Nullable String ranOn) {
}
