package dev.lockstep.sample.events;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

import org.jspecify.annotations.Nullable;

/**
 * The body of a sign-up.
 * @param participant who signs up
 * @param requestId the client's id for this sign-up, optional: a request sent again with it (a
 * retry after a timeout) takes one place, not two
 */
public record SignupRequest(@NotBlank @Size(max = 100) String participant, @Nullable @Size(max = 100) String requestId) {
}
