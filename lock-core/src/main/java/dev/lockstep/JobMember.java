package dev.lockstep;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * An instance seen alive for a guarded job: it announces itself every few seconds while it has
 * the job, and only instances that fire the job lately may be chosen to run its next cron slot.
 * @param job the guard name
 * @param instance the instance's id ({@code lockstep.instance-id})
 * @param lastSeen when it last announced itself (Redis server clock)
 * @param lastFiredSlot the last cron slot it fired, or null if it fired none lately
 */
public record JobMember(String job, String instance, Instant lastSeen, @Nullable Instant lastFiredSlot) {
}
