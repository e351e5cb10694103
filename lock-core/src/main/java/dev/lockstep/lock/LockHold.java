package dev.lockstep.lock;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.lockstep.LockHandle;

/** One acquisition by a caller: a reentrant hold on a {@link HeldLock}. */
final class LockHold implements LockHandle {

	private final LockEngine engine;

	private final HeldLock lock;

	private final Thread thread;

	private final AtomicBoolean closed = new AtomicBoolean();

	LockHold(LockEngine engine, HeldLock lock) {
		this.engine = engine;
		this.lock = lock;
		this.thread = Thread.currentThread();
	}

	LockEngine engine() {
		return this.engine;
	}

	HeldLock lock() {
		return this.lock;
	}

	Thread thread() {
		return this.thread;
	}

	boolean isClosed() {
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
			ThreadLocks.remove(this);
			this.engine.exit(this.lock);
		}
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + key() + ", fencingToken=" + fencingToken() + ", held=" + isHeld() + "]";
	}

}
