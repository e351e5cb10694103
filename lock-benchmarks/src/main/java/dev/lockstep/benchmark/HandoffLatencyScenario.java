package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * D: how long a blocked waiter on another client takes to hold the lock once the holder calls
 * release: the time from the start of the holder's release call to the waiter's lock call
 * returning. The waiter must really be blocked first (see {@link BlockedWaiter}), not still
 * on its way to Redis.
 */
final class HandoffLatencyScenario implements Scenario {

	static final Metric P50 = Metric.latencyPercentile("p50 hand-off ms", 50);

	static final Metric P99 = Metric.latencyPercentile("p99 hand-off ms", 99);

	@Override
	public Definition definition() {
		// a busy-spinning waiter is never blocked, so the raw lock has no place here
		return new Definition("D",
				"hand-off latency from the holder's release call to a blocked waiter on another client holding the lock",
				List.of(Library.LOCKSTEP, Library.REDISSON, Library.REGISTRY_PUB_SUB, Library.REGISTRY_SPIN),
				List.of(P50, P99, Metric.overlaps()));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		String key = context.key("d");
		Histogram latencies = new Histogram(3);
		try (LockClient holder = library.connect(context.redis());
				LockClient waiterClient = library.connect(context.redis());
				BlockedWaiter waiter = new BlockedWaiter(waiterClient, "bench-d-" + library.id())) {
			int trials = settings.warmupTrials() + settings.latencyTrialsIn(context.round());
			for (int trial = 0; trial < trials; trial++) {
				long nanos = handOff(holder, waiter, key, settings.settle().toNanos(), pollingPeriod(library).toNanos());
				if (trial >= settings.warmupTrials()) {
					latencies.recordValue(TimeUnit.NANOSECONDS.toMicros(nanos));
				}
			}
			return new RunResult().withLatencies(latencies)
				.withOverlaps(waiter.overlaps())
				.withNote(String.format(Locale.ROOT, "%d hand-offs, ms: p50 %.2f, p90 %.2f, p99 %.2f, max %.2f",
						latencies.getTotalCount(), latencies.getValueAtPercentile(50) / 1000.0,
						latencies.getValueAtPercentile(90) / 1000.0, latencies.getValueAtPercentile(99) / 1000.0,
						latencies.getMaxValue() / 1000.0));
		}
	}

	/**
	 * How often the library's waiter retries on its own; a trial would otherwise release at the
	 * same point of every polling cycle and measure that point, not the average a waiter sees.
	 */
	private static Duration pollingPeriod(Library library) {
		// RedisLockRegistry's default idleBetweenTries
		return (library == Library.REGISTRY_SPIN) ? Duration.ofMillis(100) : Duration.ZERO;
	}

	/** One trial: take the lock, let the waiter block on it, release; the nanoseconds until the waiter held it. */
	private static long handOff(LockClient holder, BlockedWaiter waiter, String key, long settleNanos, long pollingNanos)
			throws Exception {
		LockClient.Hold held = holder.lock(key);
		waiter.holdersEnter();
		waiter.startWaiting(key);
		waiter.awaitBlocked(settleNanos);
		if (pollingNanos > 0) {
			TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(pollingNanos));
		}
		waiter.holdersLeave();
		long releasedAt = System.nanoTime();
		held.close();
		return waiter.acquiredAt() - releasedAt;
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(
				TargetCheck.atMost(id(), "Lockstep p50 ≤ 0.65x Redisson's", results.figure(Library.LOCKSTEP, P50), 0.65,
						results.figure(Library.REDISSON, P50)),
				TargetCheck.atMost(id(), "Lockstep p99 ≤ half of Redisson's", results.figure(Library.LOCKSTEP, P99),
						0.5, results.figure(Library.REDISSON, P99)));
	}

}
