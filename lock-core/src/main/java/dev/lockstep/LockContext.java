package dev.lockstep;

import java.util.Optional;

import dev.lockstep.internal.ThreadHolds;

/**
 * The locks the current thread holds, for code running inside a {@code @DistributedLock} method
 * or a {@link LockService} callback that wants the fencing token.
 */
public final class LockContext {

	private LockContext() {
	}

	/** The most recently acquired lock the current thread still holds, if any. */
	public static Optional<LockHandle> current() {
		return ThreadHolds.current();
	}

}
