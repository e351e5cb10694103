package dev.lockstep.lock;

import java.util.List;

import org.springframework.util.Assert;

import dev.lockstep.LockKeyException;
import dev.lockstep.internal.LogText;

/**
 * The Redis keys of one lock. All share one hash tag, so they live in one cluster slot and one
 * script may touch them all.
 * @param key the key the caller asked for
 * @param lock the key holding the owner and fencing token, with the lease as its expiry
 * @param queue the list of waiters, in arrival order
 * @param alive the hash of waiting instances and their liveness deadlines
 * @param permits 0 for a lock; for permits, the caller's limit: {@code lock} is then the sorted set
 * of holders (scored by lease end), and {@link #counter()} keeps the last fencing token
 */
record LockKeys(String key, String lock, String queue, String alive, int permits) {

	/** What every permit key starts with after the key prefix; no lock key does (theirs start with '{'). */
	static final String PERMITS = "permits:";

	/** The longest key, in UTF-8 bytes: keys are Redis keys, copied into every queue entry's hand-over. */
	static final int MAX_KEY_BYTES = 1024;

	static LockKeys of(String prefix, String key) {
		return ofLock(key, prefix + hashTagged(checked(key)));
	}

	/** The keys of {@code key}'s permits, for a caller allowing {@code permits} holders. */
	static LockKeys ofPermits(String prefix, String key, int permits) {
		String holders = prefix + PERMITS + hashTagged(checked(key));
		return new LockKeys(key, holders, holders + ":queue", holders + ":alive", permits);
	}

	/** The keys of a lock or permit key as Redis names it, for a grant that must be passed on. */
	static LockKeys ofRedisKey(String prefix, String redisKey) {
		if (redisKey.startsWith(prefix + PERMITS)) {
			return new LockKeys(redisKey, redisKey, redisKey + ":queue", redisKey + ":alive", 1);
		}
		return ofLock(redisKey, redisKey);
	}

	private static String checked(String key) {
		Assert.hasText(key, "Lock key must not be blank");
		int bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
		if (bytes > MAX_KEY_BYTES) {
			throw new LockKeyException("Lock key '" + LogText.of(key.substring(0, Math.min(key.length(), 64))) + "...' is "
					+ bytes + " bytes long; keys may be at most " + MAX_KEY_BYTES + " bytes (hash a longer one)", null);
		}
		return key;
	}

	static LockKeys ofLock(String key, String lock) {
		return new LockKeys(key, lock, lock + ":queue", lock + ":alive", 0);
	}

	boolean isPermits() {
		return this.permits > 0;
	}

	/** The permits' fencing token counter. */
	String counter() {
		return this.lock + ":token";
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
