package dev.lockstep.shedlock;

import java.time.Duration;
import java.util.Optional;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.lockstep.LockHandle;

/**
 * One ShedLock lock held through a Lockstep handle. ShedLock's base class makes it single use:
 * after {@code unlock()} or {@code extend()} it throws {@link IllegalStateException}.
 */
final class LockstepSimpleLock extends AbstractSimpleLock {

	private final LockHandle handle;

	/** When {@code lockAtLeastFor} started, by this JVM's monotonic clock: once Redis had answered. */
	private final long startedAtNanos;

	LockstepSimpleLock(LockHandle handle, LockConfiguration configuration, long startedAtNanos) {
		super(configuration);
		this.handle = handle;
		this.startedAtNanos = startedAtNanos;
	}

	/** The fencing token of the acquisition behind this lock. */
	long fencingToken() {
		return this.handle.fencingToken();
	}

	/**
	 * Keeps the lock until {@code lockAtLeastFor} has passed since it was taken, then lets it free
	 * itself; releases it now if that time has passed. Owner-checked: a lock that ran out and was
	 * taken by another is left alone.
	 */
	@Override
	protected void doUnlock() {
		Duration left = this.lockConfiguration.getLockAtLeastFor().minusNanos(System.nanoTime() - this.startedAtNanos);
		if (left.isNegative() || left.isZero()) {
			this.handle.close();
		}
		else {
			this.handle.closeKeeping(left);
		}
	}

	/**
	 * Sets the lease to the new {@code lockAtMostFor} from now, if this instance still holds the
	 * lock; the new lock's {@code lockAtLeastFor} counts from now.
	 */
	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
		long now = System.nanoTime();
		if (!this.handle.changeLease(extended.getLockAtMostFor())) {
			this.handle.close();
			return Optional.empty();
		}
		return Optional.of(new LockstepSimpleLock(this.handle, extended, now));
	}

	@Override
	public String toString() {
		return "LockstepSimpleLock[" + this.lockConfiguration.getName() + ", fencingToken=" + fencingToken() + "]";
	}

}
