package dev.lockstep.shedlock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the jobs of the application contexts in this JVM did: each run's instance and its start
 * and end by one monotonic clock, and every run that started while another was running.
 */
final class RunLog {

	/** A run of the job on {@code instance}, from {@code startNanos} to {@code endNanos}. */
	record Run(String instance, long startNanos, long endNanos) {

		boolean overlaps(Run other) {
			return this.startNanos < other.endNanos && other.startNanos < this.endNanos;
		}

	}

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger overlapsSeen = new AtomicInteger();

	private final List<Run> runs = new ArrayList<>();

	/** Runs the job body on {@code instance}: marks it running for {@code millis}. */
	void run(String instance, long millis) {
		long start = System.nanoTime();
		if (this.running.incrementAndGet() > 1) {
			this.overlapsSeen.incrementAndGet();
		}
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			// the context is closing
			Thread.currentThread().interrupt();
		}
		finally {
			this.running.decrementAndGet();
			synchronized (this.runs) {
				this.runs.add(new Run(instance, start, System.nanoTime()));
			}
		}
	}

	List<Run> runs() {
		synchronized (this.runs) {
			return List.copyOf(this.runs);
		}
	}

	/** Runs that started while another run was going on, as counted when they started. */
	int overlapsSeen() {
		return this.overlapsSeen.get();
	}

	/** Pairs of recorded runs whose times overlap. */
	List<List<Run>> overlappingPairs() {
		List<Run> all = runs();
		List<List<Run>> pairs = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			for (int j = i + 1; j < all.size(); j++) {
				if (all.get(i).overlaps(all.get(j))) {
					pairs.add(List.of(all.get(i), all.get(j)));
				}
			}
		}
		return pairs;
	}

}
