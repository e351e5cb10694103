package dev.lockstep.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;

/**
 * One key's lock of a {@link LockstepLockRegistry}: a local fair {@link ReentrantLock} (the
 * holding thread, its reentrant holds, and the queue of this instance's threads) in front of one
 * Lockstep acquisition in Redis, taken by the thread's first hold and closed by its last unlock.
 */
final class LockstepDistributedLock implements DistributedLock {

	/**
	 * The wait in Redis of the calls that wait until they get the lock: one wait, as long as it takes
	 * (a hundred years), so that the waiter keeps its place in the lock's queue. Redis not answering
	 * when the waiter joins the queue ends it with {@code LockUnavailableException}; while it waits,
	 * an outage does not: its heartbeat queues it again if Redis lost its entry.
	 */
	private static final Duration UNTIL_TAKEN = Duration.ofDays(36_500);

	private final LockService lockService;

	private final String key;

	private final ReentrantLock local = new ReentrantLock(true);

	/** The acquisition in Redis while a thread holds this lock; written only by the holding thread. */
	private volatile @Nullable LockHandle handle;

	/** The fixed lease of {@link #handle}, or null while the watchdog renews it. */
	private volatile @Nullable Duration lease;

	private volatile long lastUsedMillis = System.currentTimeMillis();

	LockstepDistributedLock(LockService lockService, String key) {
		this.lockService = lockService;
		this.key = key;
	}

	@Override
	public void lock() {
		lockUninterruptibly(null);
	}

	@Override
	public void lock(Duration timeToLive) {
		lockUninterruptibly(positive(timeToLive));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		do {
			this.local.lockInterruptibly();
		}
		while (!enter(UNTIL_TAKEN, null));
	}

	@Override
	public boolean tryLock() {
		boolean interrupted = Thread.interrupted();
		try {
			return this.local.tryLock() && enter(Duration.ZERO, null);
		}
		catch (InterruptedException ex) {
			interrupted = true;
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLockWithin(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
	}

	@Override
	public boolean tryLock(Duration waitTime, Duration timeToLive) throws InterruptedException {
		return tryLockWithin(waitTime.isNegative() ? Duration.ZERO : waitTime, positive(timeToLive));
	}

	/**
	 * Releases one hold of the current thread; the last one releases the lock in Redis.
	 * @throws IllegalMonitorStateException if the current thread does not hold this lock
	 * @throws ConcurrentModificationException if the lock had been lost before this last unlock
	 * (it is released here all the same)
	 */
	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by thread "
					+ Thread.currentThread().getName() + " and cannot be unlocked by it");
		}
		try {
			if (this.local.getHoldCount() == 1) {
				LockHandle held = this.handle;
				this.handle = null;
				this.lease = null;
				boolean lost = held == null || !held.isHeld();
				if (held != null) {
					held.close();
				}
				if (lost) {
					throw new ConcurrentModificationException("Lock '" + this.key + "' was lost before it was unlocked "
							+ "(its lease ran out unrenewed, or Redis lost it): the work it guarded may have overlapped "
							+ "another holder's");
				}
			}
		}
		finally {
			this.lastUsedMillis = System.currentTimeMillis();
			this.local.unlock();
		}
	}

	/** Not supported: a condition would need a signal across instances. */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Lock '" + this.key + "' of a LockstepLockRegistry has no conditions");
	}

	boolean isHeldByCurrentThread() {
		return this.local.isHeldByCurrentThread();
	}

	boolean isUnusedSince(long cutoffMillis) {
		return !this.local.isLocked() && this.lastUsedMillis < cutoffMillis;
	}

	/** A held lock's renewal: its fixed lease again or {@code timeToLive}; a watchdog lock is only checked. */
	void renew(@Nullable Duration timeToLive) {
		LockHandle held = this.handle;
		if (held == null || !held.isHeld()) {
			throw new IllegalStateException("Lock '" + this.key + "' was lost and cannot be renewed");
		}
		Duration fixed = this.lease;
		if (fixed == null) {
			if (timeToLive != null) {
				throw new IllegalStateException("Lock '" + this.key + "' is renewed by the watchdog and takes no time "
						+ "to live; take it with lock(Duration) or tryLock(Duration, Duration) to renew it with one");
			}
			return;
		}
		Duration next = (timeToLive != null) ? positive(timeToLive) : fixed;
		if (!held.changeLease(next)) {
			throw new IllegalStateException("Lock '" + this.key + "' was lost and cannot be renewed");
		}
		this.lease = next;
	}

	private void lockUninterruptibly(@Nullable Duration timeToLive) {
		boolean interrupted = false;
		try {
			while (true) {
				this.local.lock();
				try {
					if (enter(UNTIL_TAKEN, timeToLive)) {
						return;
					}
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private boolean tryLockWithin(Duration waitTime, @Nullable Duration timeToLive) throws InterruptedException {
		long deadline = System.nanoTime() + waitTime.toNanos();
		if (!this.local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
			return false;
		}
		return enter(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), timeToLive);
	}

	/**
	 * With the local lock just taken by the current thread: a reentrant hold goes on if the lock is
	 * still held in Redis; a first hold, or a reentrant one whose lock was lost, takes the lock in
	 * Redis within {@code waitTime}. Taken afresh, the lock carries the thread's earlier holds too,
	 * so that unlocking this hold leaves it held, as a reentrant hold's unlock must (Spring
	 * Integration's leader initiator tries its lock again every heartbeat and unlocks that extra hold
	 * at once). On failure the local lock is given up: this hold, and the earlier holds of a lost lock.
	 */
	private boolean enter(Duration waitTime, @Nullable Duration timeToLive) throws InterruptedException {
		if (this.local.getHoldCount() > 1) {
			LockHandle held = this.handle;
			if (stillHeld(held, timeToLive)) {
				return true;
			}
			this.handle = null;
			this.lease = null;
			if (held != null) {
				held.close();
			}
		}
		boolean taken = false;
		try {
			LockHandle acquired = acquire(waitTime, timeToLive);
			if (acquired != null) {
				this.handle = acquired;
				this.lease = timeToLive;
				this.lastUsedMillis = System.currentTimeMillis();
				taken = true;
			}
			return taken;
		}
		finally {
			if (!taken) {
				while (this.local.isHeldByCurrentThread()) {
					this.local.unlock();
				}
			}
		}
	}

	/**
	 * Whether a reentrant hold may go on: the lock still held, and a fixed lease set to the new
	 * {@code timeToLive} if one is given. Redis failing leaves the thread's earlier holds as they were.
	 */
	private boolean stillHeld(@Nullable LockHandle held, @Nullable Duration timeToLive) {
		if (held == null || !held.isHeld()) {
			return false;
		}
		if (timeToLive == null || this.lease == null) {
			return true;
		}
		try {
			if (!held.changeLease(timeToLive)) {
				return false;
			}
		}
		catch (RuntimeException ex) {
			this.local.unlock();
			throw ex;
		}
		this.lease = timeToLive;
		return true;
	}

	private @Nullable LockHandle acquire(Duration waitTime, @Nullable Duration timeToLive) throws InterruptedException {
		try {
			if (timeToLive == null) {
				return this.lockService.acquire(this.key, waitTime);
			}
			return this.lockService.tryAcquire(this.key, waitTime, timeToLive).orElse(null);
		}
		catch (LockNotAcquiredException ex) {
			if (ex.getCause() instanceof InterruptedException || Thread.interrupted()) {
				Thread.interrupted();
				InterruptedException interrupted = new InterruptedException("Interrupted while waiting for lock '"
						+ this.key + "'");
				interrupted.initCause(ex);
				throw interrupted;
			}
			return null;
		}
	}

	private Duration positive(Duration timeToLive) {
		if (timeToLive.isNegative() || timeToLive.isZero()) {
			throw new IllegalArgumentException("Time to live of lock '" + this.key + "' must be positive: " + timeToLive);
		}
		return timeToLive;
	}

	@Override
	public String toString() {
		return "LockstepDistributedLock[" + this.key + ", " + this.local + "]";
	}

}
