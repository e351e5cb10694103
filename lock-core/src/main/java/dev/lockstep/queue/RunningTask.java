package dev.lockstep.queue;

import dev.lockstep.SerialTask;

/**
 * A task running on a worker thread, by its owner id (one per take), and its attempt's lease as
 * this instance knows it: held until a local deadline counted from before the take (or the last
 * renewal) was sent, so never later than Redis's expiry. Once its end is on its way to Redis, a
 * renewal that finds its lease gone is that end, not a lost lease.
 */
final class RunningTask implements SerialTask.Lease {

	private final String taskId;

	private final Thread thread;

	private volatile long deadlineNanos;

	private volatile boolean ending;

	private volatile boolean lost;

	private volatile boolean interruptedToStop;

	RunningTask(String taskId, Thread thread, long deadlineNanos) {
		this.taskId = taskId;
		this.thread = thread;
		this.deadlineNanos = deadlineNanos;
	}

	String taskId() {
		return this.taskId;
	}

	Thread thread() {
		return this.thread;
	}

	/** The attempt has ended: its lease is no longer its listener's. */
	void ending() {
		this.ending = true;
	}

	/** A renewal sent before {@code deadline} minus the lease was accepted. */
	synchronized void renewedUntil(long deadline) {
		if (deadline - this.deadlineNanos > 0) {
			this.deadlineNanos = deadline;
		}
	}

	/** Its instance stops and the shutdown timeout passed: its thread is interrupted, and it goes back whatever it throws. */
	void interruptToStop() {
		this.interruptedToStop = true;
		this.thread.interrupt();
	}

	boolean interruptedToStop() {
		return this.interruptedToStop;
	}

	/** A renewal found the lease gone; true if the attempt was still running then. */
	boolean lost() {
		this.lost = true;
		return !this.ending;
	}

	@Override
	public boolean isCurrent() {
		return !this.ending && !this.lost && System.nanoTime() - this.deadlineNanos < 0;
	}

	@Override
	public String toString() {
		return "lease of task " + this.taskId + (isCurrent() ? " (current)" : " (no longer current)");
	}

}
