package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.ThreadHolds;

/** One acquisition by a caller: a reentrant hold on a {@link LockOwnership}. */
final class LockHold implements ThreadHolds.EngineHold {

	private final LockEngine engine;

	private final LockOwnership lock;

	private final Thread thread;

	private final AtomicBoolean closed = new AtomicBoolean();

	LockHold(LockEngine engine, LockOwnership lock) {
		this.engine = engine;
		this.lock = lock;
		this.thread = Thread.currentThread();
	}

	LockEngine engine() {
		return this.engine;
	}

	LockOwnership lock() {
		return this.lock;
	}

	@Override
	public Thread thread() {
		return this.thread;
	}

	@Override
	public boolean isClosed() {
		return this.closed.get();
	}

	@Override
	public String key() {
		return this.lock.keys().key();
	}

	@Override
	public long fencingToken() {
		return this.lock.fencingToken();
	}

	@Override
	public boolean isHeld() {
		return !this.closed.get() && this.lock.isHeld();
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			ThreadHolds.remove(this);
			this.engine.locks.exit(this.lock);
		}
	}

	@Override
	public boolean changeLease(Duration leaseTime) {
		DurationRules.positive("Lease time of lock '" + key() + "'", leaseTime);
		if (this.lock.renewedByWatchdog()) {
			throw new IllegalStateException("Lock '" + key() + "' is renewed by the watchdog and its lease cannot be "
					+ "changed; acquire it with a fixed lease (tryAcquire) to change its lease");
		}
		if (this.closed.get()) {
			return false;
		}
		return this.engine.locks.changeLease(this.lock, DurationRules.capped(leaseTime));
	}

	@Override
	public void closeKeeping(Duration keepFor) {
		DurationRules.notNegative("Time to keep lock '" + key() + "'", keepFor);
		if (keepFor.isZero()) {
			close();
		}
		else if (this.closed.compareAndSet(false, true)) {
			ThreadHolds.remove(this);
			this.engine.locks.exitKeeping(this.lock, DurationRules.capped(keepFor));
		}
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + key() + ", fencingToken=" + fencingToken() + ", held=" + isHeld() + "]";
	}

}
