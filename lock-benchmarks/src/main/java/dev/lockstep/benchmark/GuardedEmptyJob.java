package dev.lockstep.benchmark;

import java.util.concurrent.atomic.LongAdder;

import dev.lockstep.annotation.JobGuard;

/**
 * The job of scenarios F and F-CRON in a Lockstep application: a body that only counts, so that
 * a firing costs what the guard costs. Called through its Spring proxy.
 */
public class GuardedEmptyJob {

	/** The guard name, the same for ShedLock. */
	static final String NAME = "bench-job";

	private final LongAdder runs = new LongAdder();

	@JobGuard(name = NAME, lockAtMostFor = "10m", lockAtLeastFor = "0s")
	public void run() {
		this.runs.increment();
	}

	public long runs() {
		return this.runs.sum();
	}

}
