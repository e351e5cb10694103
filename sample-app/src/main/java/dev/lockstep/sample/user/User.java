package dev.lockstep.sample.user;

import java.time.Instant;

/**
 * A user row.
 * @param id the database id
 * @param pin the user's business key, as the messages carry it
 * @param name the display name
 * @param createdBy the instance that inserted the row
 * @param createdAt when the row was inserted
 */
public record User(long id, String pin, String name, String createdBy, Instant createdAt) {
}
