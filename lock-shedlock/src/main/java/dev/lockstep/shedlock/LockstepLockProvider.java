package dev.lockstep.shedlock;

import java.time.Duration;
import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.internal.PrefixedLocks;
import dev.lockstep.internal.ThreadHolds;

/**
 * ShedLock's {@code LockProvider} on Lockstep's {@link LockService}, so that {@code @SchedulerLock}
 * and ShedLock's {@code LockingTaskExecutor} keep working unchanged on the Redis the application
 * already uses for Lockstep.
 *
 * <p>ShedLock's semantics are kept: a lock is tried once (no waiting), its lease is
 * {@code lockAtMostFor} and is never renewed in the background, and after {@code unlock()} it
 * stays taken until {@code lockAtLeastFor} has passed since it was taken (its lease is shortened to
 * what remains of it, instead of being deleted). {@link SimpleLock#extend} moves the lease on (see
 * ShedLock's {@code KeepAliveLockProvider} for a long task) and returns a new lock; the old one is
 * then dead.
 *
 * <p>What changes against a provider that stores an expiry time: the lease is measured on the
 * Redis server's clock alone, so the instances' clocks need not agree; every acquisition gets a
 * Lockstep fencing token (increasing per lock name) that a job can pass to the resources it writes;
 * and releasing, shortening and extending are owner-checked, so a run whose lease ran out and whose
 * lock another instance then took changes nothing when it ends late.
 *
 * <p>What it does not add, and Lockstep's {@code @JobGuard} does: a lock only keeps concurrent
 * runs apart. A job guard runs each slot of the schedule once (an instance whose clock runs late
 * cannot run a slot again after another instance finished it), rotates the runs among the
 * instances, takes over a slot whose chosen instance died, and keeps a ledger of the runs and
 * skips.
 *
 * <p>Needs a {@link LockService} whose handles support {@link LockHandle#changeLease} and
 * {@link LockHandle#closeKeeping}, as Lockstep's {@code RedisLockService} does.
 */
public final class LockstepLockProvider implements ExtensibleLockProvider {

	/** The prefix of the Lockstep lock key of each ShedLock lock name unless one is given. */
	public static final String DEFAULT_KEY_PREFIX = "shedlock:";

	private final PrefixedLocks locks;

	/** A provider whose lock for ShedLock name {@code N} is Lockstep's lock {@code shedlock:N}. */
	public LockstepLockProvider(LockService lockService) {
		this(lockService, DEFAULT_KEY_PREFIX);
	}

	/**
	 * A provider whose lock for ShedLock name {@code N} is Lockstep's lock {@code keyPrefix + N}
	 * (Lockstep's own {@code lockstep.key-prefix} comes before it in Redis).
	 */
	public LockstepLockProvider(LockService lockService, String keyPrefix) {
		this.locks = new PrefixedLocks(lockService, keyPrefix, "the ShedLock locks");
	}

	/** The Lockstep lock key of ShedLock's lock {@code name}. */
	public String keyOf(String name) {
		return this.locks.keyOf(name);
	}

	/**
	 * Takes the lock named in {@code configuration} if no one holds it, without waiting, with a
	 * lease of its {@code lockAtMostFor}.
	 * @return the lock, or empty if it is held (by another instance, or by an earlier run here)
	 * @throws dev.lockstep.LockUnavailableException if Redis cannot be reached or fails
	 */
	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Duration lease = configuration.getLockAtMostFor();
		Assert.isTrue(!lease.isNegative() && !lease.isZero(),
				() -> "lockAtMostFor of ShedLock lock '" + configuration.getName() + "' must be positive: " + lease);
		Optional<LockHandle> handle = this.locks.lockService().tryAcquire(keyOf(configuration.getName()), Duration.ZERO, lease);
		if (handle.isEmpty()) {
			return Optional.empty();
		}
		// ShedLock's locks are not reentrant: another lock() on this thread must try Redis, and fail,
		// rather than re-enter this one; and unlock() may come from another thread.
		ThreadHolds.detach(handle.get());
		return Optional.of(new LockstepSimpleLock(handle.get(), configuration, System.nanoTime()));
	}

	@Override
	public String toString() {
		return "LockstepLockProvider[" + this.locks + "]";
	}

}
