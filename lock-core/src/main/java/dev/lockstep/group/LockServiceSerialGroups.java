package dev.lockstep.group;

import java.time.Duration;
import java.util.concurrent.Callable;

import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.NotAcquired;

/**
 * {@link SerialGroups} on a {@link LockService}: a group is a lock, and the lock's queue in Redis
 * is the group's queue. The lock serves waiters strictly in queue order and hands over directly
 * to the next one, so a group needs no dispatcher, no global lock and no polling.
 */
public final class LockServiceSerialGroups implements SerialGroups {

	private final LockService lockService;

	public LockServiceSerialGroups(LockService lockService) {
		Assert.notNull(lockService, "LockService must not be null");
		this.lockService = lockService;
	}

	@Override
	public <T> T call(String group, Duration waitTime, Callable<T> action) throws Exception {
		Assert.hasText(group, "Group must not be blank");
		LockHandle turn;
		try {
			turn = this.lockService.acquire(LOCK_KEY_PREFIX + group, waitTime);
		}
		catch (LockNotAcquiredException ex) {
			throw NotAcquired.reworded(ex, () -> notYourTurn(group, waitTime));
		}
		try (turn) {
			return action.call();
		}
	}

	/** The message of a call whose turn did not come in time. */
	public static String notYourTurn(String group, Duration waitTime) {
		return "Serial group '" + group + "' did not reach this call's turn within "
				+ DurationText.of(waitTime);
	}

}
