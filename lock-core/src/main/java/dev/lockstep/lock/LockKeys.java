package dev.lockstep.lock;

import java.util.List;

import org.springframework.util.Assert;

/**
 * The Redis keys of one lock. All share one hash tag, so they live in one cluster slot and one
 * script may touch them all.
 * @param key the key the caller asked for
 * @param lock the key holding the owner and fencing token, with the lease as its expiry
 * @param queue the list of waiters, in arrival order
 * @param alive the hash of waiting instances and their liveness deadlines
 */
record LockKeys(String key, String lock, String queue, String alive) {

	static LockKeys of(String prefix, String key) {
		Assert.hasText(key, "Lock key must not be blank");
		return ofLock(key, prefix + hashTagged(key));
	}

	static LockKeys ofLock(String key, String lock) {
		return new LockKeys(key, lock, lock + ":queue", lock + ":alive");
	}

	/** The whole key is the hash tag, unless braces in it would cut the tag short. */
	private static String hashTagged(String key) {
		if (key.indexOf('{') < 0 && key.indexOf('}') < 0) {
			return "{" + key + "}";
		}
		return "{" + Integer.toHexString(key.hashCode()) + "}" + key;
	}

	List<String> lockAndQueue() {
		return List.of(this.lock, this.queue);
	}

	List<String> all() {
		return List.of(this.lock, this.queue, this.alive);
	}

}
