package dev.lockstep.annotation;

import dev.lockstep.lock.RedisLockService;

/** Breaks the rule that the annotations import nothing of Lockstep, on purpose: {@code PackageRulesTests} must see it. */
final class ImportsTheLockEngine {

	RedisLockService imported;

	private ImportsTheLockEngine() {
	}

}
