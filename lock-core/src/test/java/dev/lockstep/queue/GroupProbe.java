package dev.lockstep.queue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches tasks run, in one JVM: a task of a group that starts while another of the group runs is
 * an overlap; one whose sequence number is not one more than the group's last run's is out of order;
 * every run of every task id is counted.
 */
final class GroupProbe {

	private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

	private final Map<String, Integer> lastSequence = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	final AtomicInteger overlaps = new AtomicInteger();

	final AtomicInteger outOfOrder = new AtomicInteger();

	final AtomicInteger total = new AtomicInteger();

	/** Runs one task of {@code group} for about {@code workNanos}, checking it alone and in order. */
	void run(String id, String group, int sequence, long workNanos) {
		AtomicInteger running = this.inFlight.computeIfAbsent(group, (g) -> new AtomicInteger());
		if (running.incrementAndGet() != 1) {
			this.overlaps.incrementAndGet();
		}
		try {
			Integer last = this.lastSequence.put(group, sequence);
			if (sequence != ((last == null) ? 0 : last + 1)) {
				this.outOfOrder.incrementAndGet();
			}
			this.runs.computeIfAbsent(id, (i) -> new AtomicInteger()).incrementAndGet();
			this.total.incrementAndGet();
			LockSupport.parkNanos(workNanos);
		}
		finally {
			running.decrementAndGet();
		}
	}

	/** Task ids that ran other than exactly once, out of {@code ids}. */
	long notRunOnce(Iterable<String> ids) {
		long count = 0;
		for (String id : ids) {
			AtomicInteger ran = this.runs.get(id);
			if (ran == null || ran.get() != 1) {
				count++;
			}
		}
		return count;
	}

}
