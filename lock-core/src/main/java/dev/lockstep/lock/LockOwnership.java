package dev.lockstep.lock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One ownership of a lock in Redis, shared by the reentrant holds of one thread. Knows how long
 * Redis has confirmed it (a lower bound on its expiry by this JVM's monotonic clock) and when the
 * watchdog should renew it next.
 */
final class LockOwnership {

	enum State {
		HELD, RELEASED, LOST
	}

	private final LockKeys keys;

	private final String owner;

	private final long fencingToken;

	private final long leaseNanos;

	private final boolean renewedByWatchdog;

	private final long acquiredAtNanos;

	private final AtomicInteger holds = new AtomicInteger(1);

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	private final AtomicBoolean renewing = new AtomicBoolean();

	/** Redis's lease records end on a millisecond of its clock (see {@link #confirm}). */
	static final long REDIS_CLOCK_GRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private volatile long confirmedUntilNanos;

	private volatile long confirmedLeaseNanos;

	/** The thread that acquired it, for monitoring. */
	private final String thread = Thread.currentThread().getName();

	/** Confirmations after the first: renewals. */
	private final AtomicInteger confirmations = new AtomicInteger(-1);

	private volatile long renewAtNanos;

	LockOwnership(LockKeys keys, String owner, long fencingToken, long leaseNanos, boolean renewedByWatchdog,
			long confirmedFromNanos, long confirmedLeaseNanos) {
		this.keys = keys;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.leaseNanos = leaseNanos;
		this.renewedByWatchdog = renewedByWatchdog;
		this.acquiredAtNanos = System.nanoTime();
		confirm(confirmedFromNanos, confirmedLeaseNanos);
	}

	LockKeys keys() {
		return this.keys;
	}

	String owner() {
		return this.owner;
	}

	long fencingToken() {
		return this.fencingToken;
	}

	long leaseNanos() {
		return this.leaseNanos;
	}

	boolean renewedByWatchdog() {
		return this.renewedByWatchdog;
	}

	long acquiredAtNanos() {
		return this.acquiredAtNanos;
	}

	boolean isHeld() {
		return this.state.get() == State.HELD && System.nanoTime() - this.confirmedUntilNanos < 0;
	}

	boolean isActive() {
		return this.state.get() == State.HELD;
	}

	String thread() {
		return this.thread;
	}

	int renewals() {
		return Math.max(0, this.confirmations.get());
	}

	long confirmedUntilNanos() {
		return this.confirmedUntilNanos;
	}

	/** Adds a reentrant hold, unless the last hold already left. */
	boolean enter() {
		int current;
		do {
			current = this.holds.get();
			if (current <= 0) {
				return false;
			}
		}
		while (!this.holds.compareAndSet(current, current + 1));
		return true;
	}

	/** Removes a hold; true when it was the last one. */
	boolean exit() {
		return this.holds.decrementAndGet() == 0;
	}

	boolean markReleased() {
		return this.state.compareAndSet(State.HELD, State.RELEASED);
	}

	boolean markLost() {
		return this.state.compareAndSet(State.HELD, State.LOST);
	}

	/**
	 * Redis confirmed, by a request sent at {@code sentAtNanos}, a lease of {@code leaseNanos}. Redis
	 * counts it in whole milliseconds from the millisecond its script ran in, so its record may end up
	 * to {@link #REDIS_CLOCK_GRAIN_NANOS} before {@code sentAtNanos + leaseNanos}: this instance believes
	 * in it that much less.
	 */
	void confirm(long sentAtNanos, long confirmedLeaseNanos) {
		this.confirmations.incrementAndGet();
		this.confirmedLeaseNanos = confirmedLeaseNanos;
		this.confirmedUntilNanos = sentAtNanos + confirmedLeaseNanos - REDIS_CLOCK_GRAIN_NANOS;
		this.renewAtNanos = sentAtNanos + confirmedLeaseNanos / 3;
	}

	/** The lease of the last confirmation: the full lease, or a hand-over's shorter grant lease before its first renewal. */
	long confirmedLeaseNanos() {
		return this.confirmedLeaseNanos;
	}

	boolean renewalDue(long nowNanos) {
		return nowNanos - this.renewAtNanos >= 0;
	}

	boolean startRenewal() {
		return this.renewing.compareAndSet(false, true);
	}

	void renewalDone() {
		this.renewing.set(false);
	}

}
