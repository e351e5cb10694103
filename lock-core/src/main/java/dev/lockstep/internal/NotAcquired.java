package dev.lockstep.internal;

import java.util.function.Supplier;

import dev.lockstep.LockNotAcquiredException;

/**
 * The one policy for a lock, group or job turn that was not acquired: an interrupted wait passes
 * unchanged (its cause is the {@link InterruptedException}, and the interrupt flag is set again),
 * any other failure to acquire is said again in the caller's own words, with the original as the
 * cause. Internal to Lockstep.
 */
public final class NotAcquired {

	private NotAcquired() {
	}

	/** The exception to throw for {@code failure}, in the words of {@code message}. */
	public static LockNotAcquiredException reworded(LockNotAcquiredException failure, Supplier<String> message) {
		if (failure.getCause() instanceof InterruptedException) {
			return failure;
		}
		return new LockNotAcquiredException(message.get(), failure);
	}

}
