package dev.lockstep.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockStateRegistry;

/**
 * {@code locks}, {@code locks/{key}} and {@code permits/{key}} of the endpoint, read through the
 * lock service's {@link LockStateRegistry}.
 * @param registry the lock service's views
 */
record LockEndpointPart(LockStateRegistry registry) {

	/** {@code locks} (no key) or {@code locks/{key}}. */
	Object locks(@Nullable String key) {
		if (key == null) {
			return new LockstepEndpoint.Locks(this.registry.heldLocks(), this.registry.waitingCalls());
		}
		return this.registry.keyState(key);
	}

	/** {@code permits/{key}}; {@code permits} alone is not found. */
	@Nullable Object permits(@Nullable String key) {
		return (key != null) ? this.registry.permitState(key) : null;
	}

}
