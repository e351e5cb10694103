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
 * @param warmupRound whether an unrecorded short round runs first, so that no library's first run
 * pays for compiling the code all of them share (Netty, Lettuce)
 */
record BenchmarkSettings(int rounds, Duration warmup, Duration measure, int latencyTrials, int warmupTrials,
		Duration settle, boolean warmupRound) {

	/** The documented run: about five minutes on two cores. */
	static BenchmarkSettings full() {
		return new BenchmarkSettings(3, Duration.ofSeconds(1), Duration.ofSeconds(3), 500, 10, Duration.ofMillis(10), true);
	}

	/** A smoke run: a few seconds per scenario, figures too short to quote. */
	static BenchmarkSettings quick() {
		return new BenchmarkSettings(1, Duration.ofMillis(300), Duration.ofSeconds(1), 30, 3, Duration.ofMillis(5), false);
	}

	BenchmarkSettings withRounds(int rounds) {
		return new BenchmarkSettings(rounds, this.warmup, this.measure, this.latencyTrials, this.warmupTrials, this.settle,
				this.warmupRound);
	}

	BenchmarkSettings withMeasure(Duration measure) {
		return new BenchmarkSettings(this.rounds, this.warmup, measure, this.latencyTrials, this.warmupTrials, this.settle,
				this.warmupRound);
	}

	BenchmarkSettings withLatencyTrials(int latencyTrials) {
		return new BenchmarkSettings(this.rounds, this.warmup, this.measure, latencyTrials, this.warmupTrials, this.settle,
				this.warmupRound);
	}

	/** The settings of the warm-up round: short windows, a few trials, nothing kept. */
	BenchmarkSettings forWarmupRound() {
		return new BenchmarkSettings(1, Duration.ZERO, Duration.ofMillis(700), 1, 5, this.settle, false);
	}

	/** The timed hand-offs of round {@code round} (from 1), so that all rounds together make {@link #latencyTrials}. */
	int latencyTrialsIn(int round) {
		int remainder = this.latencyTrials % this.rounds;
		return this.latencyTrials / this.rounds + ((round <= remainder) ? 1 : 0);
	}

}
