package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When one queue's takes on this instance handle the leases and retries that fell due: one take
 * in every {@link #EVERY} (at most a tenth of the lease) does, rather than every take (two
 * commands each). A take that finds no group waiting handles them anyway when one is due, so an
 * idle queue loses nothing, and a busy one sees a lease that ran out or a retry that fell due
 * that much later at most.
 */
final class DueSweeps {

	/** How often a busy queue's takes on this instance handle the leases and retries that fell due. */
	static final Duration EVERY = Duration.ofMillis(100);

	private final long everyNanos;

	/** When a take last did ({@link System#nanoTime()}). */
	private final AtomicLong sweptAt = new AtomicLong(System.nanoTime());

	DueSweeps(Duration leaseTime) {
		this.everyNanos = Math.min(EVERY.toNanos(), leaseTime.toNanos() / 10);
	}

	/** Whether the take about to be sent is the one to handle them. */
	boolean due() {
		long now = System.nanoTime();
		long last = this.sweptAt.get();
		return now - last >= this.everyNanos && this.sweptAt.compareAndSet(last, now);
	}

}
