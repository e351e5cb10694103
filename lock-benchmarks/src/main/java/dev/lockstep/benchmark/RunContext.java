package dev.lockstep.benchmark;

/**
 * What one measurement of one library in one scenario works with.
 * @param redis the server under load
 * @param settings durations and trial counts
 * @param round the round, from 1
 */
record RunContext(BenchmarkRedis redis, BenchmarkSettings settings, int round) {

	/** A lock key of its own for this round, so nothing a previous run left behind is in the way. */
	String key(String name) {
		return name + "-r" + this.round;
	}

}
