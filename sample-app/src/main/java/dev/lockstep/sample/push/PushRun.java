package dev.lockstep.sample.push;

import java.time.Instant;

/**
 * One run of the daily push job.
 * @param id the database id
 * @param instanceId the instance that ran it
 * @param scheduledFor the firing it ran for
 * @param startedAt when it started
 */
public record PushRun(long id, String instanceId, Instant scheduledFor, Instant startedAt) {
}
