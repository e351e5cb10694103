package dev.lockstep.sample.user;

/**
 * What initialising a user did.
 * @param user the user, new or found
 * @param created whether this call inserted it (false: an earlier delivery of the message had)
 * @param handledBy the instance that ran the call
 */
public record UserInitialisation(User user, boolean created, String handledBy) {
}
