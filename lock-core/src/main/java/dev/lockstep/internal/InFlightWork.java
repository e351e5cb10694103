package dev.lockstep.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Work in progress that a stopping component waits for: pieces of work enter and leave, and
 * {@link #awaitNone(Duration)} waits until none is left or a deadline passes. Once
 * {@link #refuseNew() refusing}, nothing more enters. Internal to Lockstep.
 */
public final class InFlightWork {

	private final Object monitor = new Object();

	private int count;

	private boolean refusing;

	/** Counts one piece of work in; false, and not counted, once new work is refused. */
	public boolean enter() {
		synchronized (this.monitor) {
			if (this.refusing) {
				return false;
			}
			this.count++;
			return true;
		}
	}

	/**
	 * Counts one piece of work in even while refusing: the tail of work already in (a reply it
	 * still waits for), which a stopping component must wait for too.
	 */
	public void enterAlways() {
		synchronized (this.monitor) {
			this.count++;
		}
	}

	/** Counts one piece of work that entered out. */
	public void leave() {
		synchronized (this.monitor) {
			this.count--;
			if (this.count == 0) {
				this.monitor.notifyAll();
			}
		}
	}

	/** From now on {@link #enter()} refuses; work already in goes on. */
	public void refuseNew() {
		synchronized (this.monitor) {
			this.refusing = true;
		}
	}

	/** The pieces of work in progress. */
	public int count() {
		synchronized (this.monitor) {
			return this.count;
		}
	}

	/**
	 * Waits until no work is in progress, for {@code timeout} at most; returns at once, with the
	 * interrupt flag set again, if the thread is interrupted.
	 * @return the pieces of work still in progress (0 when all finished in time)
	 */
	public int awaitNone(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.monitor) {
			while (this.count > 0) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					break;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this.monitor, left);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			return this.count;
		}
	}

}
