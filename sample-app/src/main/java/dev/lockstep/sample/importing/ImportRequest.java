package dev.lockstep.sample.importing;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * One import request, as the broker delivers it.
 * @param requestId the sender's id of the request
 * @param tenantId the tenant; with the entity code it names the request's group
 * @param entityCode the kind of entity imported
 * @param workMillis how long the simulated import takes
 */
public record ImportRequest(
		@NotBlank @Size(max = 100) String requestId,
		@NotBlank @Size(max = 64) @Pattern(regexp = CODE, message = CODE_MESSAGE) String tenantId,
		@NotBlank @Size(max = 64) @Pattern(regexp = CODE, message = CODE_MESSAGE) String entityCode,
		@Min(0) @Max(30_000) long workMillis) {

	/** No ':' in either part, so "tenant:entity" names exactly one group. */
	static final String CODE = "[A-Za-z0-9_.-]+";

	static final String CODE_MESSAGE = "must contain only letters, digits, '_', '.' and '-'";

}
