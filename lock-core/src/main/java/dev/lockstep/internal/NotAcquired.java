package dev.lockstep.internal;

import java.time.Duration;
import java.util.function.Supplier;

import dev.lockstep.LockNotAcquiredException;

/**
 * The one policy for a lock or group turn that was not acquired, and its words: an interrupted
 * wait passes unchanged (its cause is the {@link InterruptedException}, and the interrupt flag is
 * set again), any other failure to acquire is said again in the caller's own words, with the
 * original as the cause. Internal to Lockstep.
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

	/** The message of a lock that stayed held for the whole wait. */
	public static String lockStillHeld(String key, Duration waitTime) {
		return "Lock '" + LogText.of(key) + "' is still held elsewhere after waiting " + DurationText.of(waitTime);
	}

	/** The message of a permit call that found all permits taken for the whole wait. */
	public static String permitsTaken(String key, int permits, Duration waitTime) {
		return "All " + permits + " permits of '" + key + "' are still taken after waiting " + DurationText.of(waitTime);
	}

	/** The message of a group call whose turn did not come in time. */
	public static String notYourTurn(String group, Duration waitTime) {
		return "Serial group '" + LogText.of(group) + "' did not reach this call's turn within " + DurationText.of(waitTime);
	}

}
