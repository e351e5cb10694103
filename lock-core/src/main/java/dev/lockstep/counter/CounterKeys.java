package dev.lockstep.counter;

import java.time.Duration;
import java.util.List;

import dev.lockstep.internal.NamingRules;

/**
 * The Redis names of one count: {@code <prefix>{counter:<key>}}, and the records of its calls
 * beside it in the same hash tag (one slot of a cluster, so one script touches both):
 * {@code :id:<idempotency id>} for the caller's ids, {@code :call:<call id>} for the ids the
 * service draws for every other call.
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

	/** The record of a call with the caller's idempotency id, kept for {@code window}. */
	CallRecord idempotent(String idempotencyId, Duration window) {
		return new CallRecord(this.count + ":id:" + idempotencyId, window);
	}

	/**
	 * The record of one call without an idempotency id, by the id the service drew for it: kept
	 * for as long as Lettuce may send the call again after a reconnect (its reply lost), so that
	 * the call sent again answers as the first did rather than count twice.
	 */
	CallRecord call(String callId, Duration window) {
		return new CallRecord(this.count + ":call:" + callId, window);
	}

	/** A call's record beside the count (same hash tag), and how long it is kept. */
	record CallRecord(String key, Duration window) {
	}

}
