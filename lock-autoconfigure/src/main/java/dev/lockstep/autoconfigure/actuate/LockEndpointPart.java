package dev.lockstep.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockStateRegistry;

/**
 * {@code locks}, {@code locks/{key}} and {@code permits/{key}} of the endpoint, read through the
 * lock service's {@link LockStateRegistry}.
 */
final class LockEndpointPart {

	private final LockStateRegistry locks;

	LockEndpointPart(LockStateRegistry locks) {
		this.locks = locks;
	}

	String instanceId() {
		return this.locks.instanceId();
	}

	/** {@code locks} (no key) or {@code locks/{key}}. */
	Object locks(@Nullable String key) {
		if (key == null) {
			return new LockstepEndpoint.Locks(this.locks.heldLocks(), this.locks.waitingCalls());
		}
		return this.locks.keyState(key);
	}

	/** {@code permits/{key}}; {@code permits} alone is not found. */
	@Nullable Object permits(@Nullable String key) {
		return (key != null) ? this.locks.permitState(key) : null;
	}

}
