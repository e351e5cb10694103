package dev.lockstep.lock;

import dev.lockstep.job.RedisJobGuard;

/** Breaks the rule that the lock engine imports only the API and internal, on purpose: {@code PackageRulesTests} must see it. */
final class ImportsTheJobGuard {

	RedisJobGuard imported;

	private ImportsTheJobGuard() {
	}

}
