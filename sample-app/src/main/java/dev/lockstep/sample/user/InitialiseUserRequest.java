package dev.lockstep.sample.user;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

import org.jspecify.annotations.Nullable;

/**
 * The body of an "init user" message.
 * @param pin the user's business key; deliberately not {@code @NotBlank}: the lock refuses a call
 * without a key by itself, as it would for a message consumer that has no web validation
 * @param name the display name
 */
public record InitialiseUserRequest(@Nullable @Size(max = 64) String pin, @NotBlank @Size(max = 200) String name) {
}
