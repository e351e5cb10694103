package dev.lockstep.internal;

import org.springframework.util.Assert;

import dev.lockstep.LockService;

/**
 * The locks of an adapter (the ShedLock provider, the Spring Integration registry): Lockstep locks
 * of the application's {@link LockService}, each under the adapter's own key prefix.
 */
public final class PrefixedLocks {

	private final LockService lockService;

	private final String keyPrefix;

	/**
	 * @param whose the adapter's locks, for the message when the prefix is missing ("the ShedLock locks")
	 */
	public PrefixedLocks(LockService lockService, String keyPrefix, String whose) {
		Assert.notNull(lockService, "LockService must not be null");
		Assert.notNull(keyPrefix, () -> "Key prefix of " + whose + " must not be null");
		this.lockService = lockService;
		this.keyPrefix = keyPrefix;
	}

	public LockService lockService() {
		return this.lockService;
	}

	/** The Lockstep lock key of the adapter's lock {@code name}. */
	public String keyOf(String name) {
		return this.keyPrefix + name;
	}

	@Override
	public String toString() {
		return "keyPrefix=" + this.keyPrefix + ", lockService=" + this.lockService;
	}

}
