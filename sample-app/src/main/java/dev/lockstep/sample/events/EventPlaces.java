package dev.lockstep.sample.events;

/**
 * How full an event is.
 * @param eventId the event
 * @param taken places taken, from the shared counter
 * @param limit the participant limit
 * @param signups sign-up rows in the database (equal to {@code taken} unless a row could not be written)
 */
public record EventPlaces(String eventId, long taken, long limit, long signups) {
}
