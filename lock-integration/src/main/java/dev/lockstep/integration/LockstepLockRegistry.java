package dev.lockstep.integration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.Assert;

import dev.lockstep.LockService;
import dev.lockstep.internal.PrefixedLocks;

/**
 * Spring Integration's {@code LockRegistry} on Lockstep's {@link LockService}: the locks of
 * aggregators, {@code LockRegistryLeaderInitiator} and {@code executeLocked} become Lockstep locks
 * on the Redis the application already uses.
 *
 * <p>{@link #obtain(Object)} returns one {@link DistributedLock} per key (a {@code String}), shared
 * by the threads of this registry. The lock is reentrant per thread and only its holding thread may
 * unlock it ({@link IllegalMonitorStateException} otherwise); threads of one instance queue locally
 * first, so only one of them at a time waits in Redis. {@code lock()}, {@code lockInterruptibly()}
 * and the {@code tryLock}s without a time to live take a lock whose lease the watchdog renews
 * until it is unlocked ({@code lockstep.lock.lease-time}); {@code lock(Duration)} and
 * {@code tryLock(Duration, Duration)} take one with that fixed lease, which
 * {@link #renewLock(Object, Duration)} moves on. {@code newCondition()} is not supported.
 *
 * <p>What changes against {@code RedisLockRegistry}: waiters are served in the order they queued
 * (no polling or pub/sub race), a held lock is renewed for as long as it is held unless a time to
 * live is given, the lease is measured on the Redis server's clock, and releases are owner-checked
 * with a fencing token. A lock found lost (its lease ran out unrenewed, for example through a long
 * pause) is taken afresh when its thread tries it again, for the thread's earlier holds too, so
 * that unlocking that attempt's hold leaves it held (as with {@code RedisLockRegistry}); if that
 * attempt fails, the earlier holds end with the lost lock. Unlocking a lost lock throws
 * {@link java.util.ConcurrentModificationException}, as Spring Integration's own registries do.
 */
public final class LockstepLockRegistry
		implements RenewableLockRegistry<DistributedLock>, ExpirableLockRegistry<DistributedLock> {

	/** The prefix of the Lockstep lock key of each registry key unless one is given. */
	public static final String DEFAULT_KEY_PREFIX = "integration:";

	private final PrefixedLocks prefixed;

	private final Map<String, LockstepDistributedLock> locks = new ConcurrentHashMap<>();

	/** A registry whose lock for key {@code K} is Lockstep's lock {@code integration:K}. */
	public LockstepLockRegistry(LockService lockService) {
		this(lockService, DEFAULT_KEY_PREFIX);
	}

	/**
	 * A registry whose lock for key {@code K} is Lockstep's lock {@code keyPrefix + K} (Lockstep's
	 * own {@code lockstep.key-prefix} comes before it in Redis).
	 */
	public LockstepLockRegistry(LockService lockService, String keyPrefix) {
		this.prefixed = new PrefixedLocks(lockService, keyPrefix, "the registry's locks");
	}

	/**
	 * The lock for {@code lockKey}, a {@code String}: the same object for the same key until
	 * {@link #expireUnusedOlderThan(long)} drops it.
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		Assert.isInstanceOf(String.class, lockKey, "Lock key of a LockstepLockRegistry must be a String");
		String key = (String) lockKey;
		return this.locks.computeIfAbsent(key,
				(name) -> new LockstepDistributedLock(this.prefixed.lockService(), this.prefixed.keyOf(name)));
	}

	/**
	 * Forgets the locks not held by any thread and last locked or unlocked more than {@code age}
	 * milliseconds ago; {@link #obtain(Object)} makes them anew.
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		this.locks.values().removeIf((lock) -> lock.isUnusedSince(now - age));
	}

	/**
	 * Renews the lock for {@code lockKey}, which the current thread must hold: a lock with a fixed
	 * lease gets that lease again from now; a lock renewed by the watchdog is checked to be held.
	 * @throws IllegalStateException if the current thread does not hold it, or it was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		heldLock(lockKey).renew(null);
	}

	/**
	 * Sets the lease of the lock for {@code lockKey}, which the current thread must hold and must
	 * have taken with a time to live, to {@code timeToLive} from now, on the Redis server's clock.
	 * @throws IllegalStateException if the current thread does not hold it, it was lost, or its
	 * lease is renewed by the watchdog
	 */
	@Override
	public void renewLock(Object lockKey, Duration timeToLive) {
		Assert.notNull(timeToLive, "Time to live must not be null");
		heldLock(lockKey).renew(timeToLive);
	}

	private LockstepDistributedLock heldLock(Object lockKey) {
		Assert.isInstanceOf(String.class, lockKey, "Lock key of a LockstepLockRegistry must be a String");
		LockstepDistributedLock lock = this.locks.get((String) lockKey);
		if (lock == null || !lock.isHeldByCurrentThread()) {
			throw new IllegalStateException("Lock '" + lockKey + "' is not held by thread "
					+ Thread.currentThread().getName() + " and cannot be renewed");
		}
		return lock;
	}

	@Override
	public String toString() {
		return "LockstepLockRegistry[" + this.prefixed + "]";
	}

}
