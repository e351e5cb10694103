package dev.lockstep.internal;

import dev.lockstep.lock.RedisLockService;

/** Breaks the rule that internal imports only the API, on purpose: {@code PackageRulesTests} must see it. */
final class ImportsAFeature {

	RedisLockService imported;

	private ImportsAFeature() {
	}

}
