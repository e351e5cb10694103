package dev.lockstep.internal.redis;

import dev.lockstep.LockService;

/** Breaks the rule that internal.redis imports only internal, on purpose: {@code PackageRulesTests} must see it. */
final class ImportsTheApi {

	LockService imported;

	private ImportsTheApi() {
	}

}
