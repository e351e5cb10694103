package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads that each run one body at once, for the scenarios that drive a library from many
 * threads; the first failure among them fails the whole run.
 */
final class ParallelThreads {

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	/** What one thread runs, given its index. */
	@FunctionalInterface
	interface Body {

		void run(int thread) throws Exception;

	}

	/** Whether a thread has failed: the others may stop early, the run fails anyway. */
	boolean failed() {
		return this.failure.get() != null;
	}

	/**
	 * Runs {@code body} on {@code threads} threads named {@code name-<index>} and waits for each of
	 * them up to {@code timeout}.
	 * @throws IllegalStateException naming a thread still running after that, or with
	 * {@code whatFailed} as its message and the first failure as its cause
	 */
	void run(int threads, String name, Duration timeout, String whatFailed, Body body) throws InterruptedException {
		Thread[] started = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			int thread = t;
			started[t] = new Thread(() -> {
				try {
					body.run(thread);
				}
				catch (Throwable ex) {
					this.failure.compareAndSet(null, ex);
				}
			}, name + "-" + t);
			started[t].start();
		}
		for (Thread thread : started) {
			thread.join(timeout.toMillis());
			if (thread.isAlive()) {
				throw new IllegalStateException(thread.getName() + " had not ended after a wait of " + timeout);
			}
		}
		if (failed()) {
			throw new IllegalStateException(whatFailed, this.failure.get());
		}
	}

}
