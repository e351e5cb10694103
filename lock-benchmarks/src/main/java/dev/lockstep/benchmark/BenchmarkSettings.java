package dev.lockstep.benchmark;

import java.time.Duration;

/**
 * How long and how often to measure.
 * @param rounds how many times every library runs every scenario, interleaved
 * @param warmup unmeasured load before each measured window
 * @param measure the measured window of the throughput scenarios
 * @param latencyTrials hand-offs timed per library, spread over all rounds
 * @param warmupTrials untimed hand-offs before the timed ones, in every round
 * @param settle how long a waiter must stay parked before it counts as blocked on the lock
 * @param libraryWarmup how long each library locks a free key before round 1, so that no library's
 * first run pays alone for compiling the code all of them share (Netty, Lettuce)
 * @param groupJobs measured serial-group jobs (scenario E) per library and round
 * @param groupWarmupJobs unrecorded serial-group jobs before the measured ones, in every run of E
 */
record BenchmarkSettings(int rounds, Duration warmup, Duration measure, int latencyTrials, int warmupTrials,
		Duration settle, Duration libraryWarmup, int groupJobs, int groupWarmupJobs) {

	/** The documented run: about six minutes on two cores. */
	static BenchmarkSettings full() {
		return new BenchmarkSettings(3, Duration.ofSeconds(1), Duration.ofSeconds(3), 500, 10, Duration.ofMillis(10),
				Duration.ofSeconds(2), 3, 1);
	}

	/** A smoke run: a few seconds per scenario, figures too short to quote. */
	static BenchmarkSettings quick() {
		return new BenchmarkSettings(1, Duration.ofMillis(300), Duration.ofSeconds(1), 30, 3, Duration.ofMillis(5),
				Duration.ofMillis(500), 1, 0);
	}

	BenchmarkSettings withRounds(int rounds) {
		return new BenchmarkSettings(rounds, this.warmup, this.measure, this.latencyTrials, this.warmupTrials, this.settle,
				this.libraryWarmup, this.groupJobs,
				this.groupWarmupJobs);
	}

	BenchmarkSettings withMeasure(Duration measure) {
		return new BenchmarkSettings(this.rounds, this.warmup, measure, this.latencyTrials, this.warmupTrials, this.settle,
				this.libraryWarmup, this.groupJobs,
				this.groupWarmupJobs);
	}

	BenchmarkSettings withLatencyTrials(int latencyTrials) {
		return new BenchmarkSettings(this.rounds, this.warmup, this.measure, latencyTrials, this.warmupTrials, this.settle,
				this.libraryWarmup, this.groupJobs,
				this.groupWarmupJobs);
	}

	BenchmarkSettings withGroupJobs(int groupJobs) {
		return new BenchmarkSettings(this.rounds, this.warmup, this.measure, this.latencyTrials, this.warmupTrials,
				this.settle, this.libraryWarmup, groupJobs,
				this.groupWarmupJobs);
	}

	/** Whether this is a smoke run ({@link #quick()}), whose workloads may be smaller. */
	boolean isQuick() {
		return this.groupWarmupJobs == 0;
	}

	/** The timed hand-offs of round {@code round} (from 1), so that all rounds together make {@link #latencyTrials}. */
	int latencyTrialsIn(int round) {
		int remainder = this.latencyTrials % this.rounds;
		return this.latencyTrials / this.rounds + ((round <= remainder) ? 1 : 0);
	}

}
