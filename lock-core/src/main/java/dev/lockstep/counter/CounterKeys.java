package dev.lockstep.counter;

import java.util.List;

import dev.lockstep.internal.NamingRules;

/**
 * The Redis names of one count: {@code <prefix>{counter:<key>}}, and its idempotency records
 * beside it in the same hash tag (one slot of a cluster, so one script touches both).
 */
record CounterKeys(String key, String count) {

	static CounterKeys of(String keyPrefix, String key) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be blank, was '" + key + "'");
		}
		NamingRules.insideHashTag("key", key);
		return new CounterKeys(key, keyPrefix + "{counter:" + key + "}");
	}

	List<String> forScripts() {
		return List.of(this.count);
	}

	List<String> forScripts(String idempotencyId) {
		return List.of(this.count, this.count + ":id:" + idempotencyId);
	}

}
