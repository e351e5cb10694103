package dev.lockstep.sample.events;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A place taken at an event.
 * @param eventId the event
 * @param participant who took it
 * @param requestId the client's id for the sign-up, if it gave one
 * @param handledBy the instance that took it
 * @param signedUpAt when
 */
public record Signup(String eventId, String participant, @Nullable String requestId, String handledBy, Instant signedUpAt) {
}
