package dev.lockstep;

import dev.lockstep.queue.RedisSerialQueue;

/** Breaks the rule that the API imports only internal, on purpose: {@code PackageRulesTests} must see it. */
final class ImportsTheQueue {

	RedisSerialQueue imported;

	private ImportsTheQueue() {
	}

}
