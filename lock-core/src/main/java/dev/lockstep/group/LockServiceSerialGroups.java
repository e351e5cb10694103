package dev.lockstep.group;

import java.time.Duration;

import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
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
	public LockHandle awaitTurn(String group, Duration waitTime) {
		Assert.hasText(group, "Group must not be blank");
		try {
			return this.lockService.acquire(LOCK_KEY_PREFIX + group, waitTime);
		}
		catch (LockNotAcquiredException ex) {
			throw NotAcquired.reworded(ex, () -> NotAcquired.notYourTurn(group, waitTime));
		}
	}

	@Override
	public LockHandle awaitTurn(String group, Duration waitTime, Duration leaseTime) {
		Assert.hasText(group, "Group must not be blank");
		try {
			return this.lockService.tryAcquire(LOCK_KEY_PREFIX + group, waitTime, leaseTime)
				.orElseThrow(() -> new LockNotAcquiredException(NotAcquired.notYourTurn(group, waitTime)));
		}
		catch (LockNotAcquiredException ex) {
			throw NotAcquired.reworded(ex, () -> NotAcquired.notYourTurn(group, waitTime));
		}
	}

}
