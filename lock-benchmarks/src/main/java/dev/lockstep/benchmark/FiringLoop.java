package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Fires a guarded job back to back on one thread, first for a warm-up and then for a measured
 * window, timing each firing and counting what the window cost: Redis commands, this JVM's CPU
 * time and the server's.
 */
final class FiringLoop {

	private FiringLoop() {
	}

	static Window run(GuardedJobClient client, BenchmarkRedis redis, Duration warmup, Duration measure) throws Exception {
		fireFor(client, warmup.toNanos(), null);
		long runsBefore = client.runs();
		CostMeter meter = CostMeter.start(redis);
		Histogram micros = new Histogram(3);
		long start = System.nanoTime();
		long firings = fireFor(client, measure.toNanos(), micros);
		long nanos = System.nanoTime() - start;
		CostMeter.Cost cost = meter.stop();
		long runs = client.runs() - runsBefore;
		if (runs != firings) {
			throw new IllegalStateException("The job ran " + runs + " times in " + firings + " firings; each should run it");
		}
		client.checkFirings();
		return new Window(firings, nanos, cost, micros);
	}

	/** Fires until {@code nanos} have passed, recording each firing's time in {@code micros} if given. */
	private static long fireFor(GuardedJobClient client, long nanos, @Nullable Histogram micros) throws Exception {
		long start = System.nanoTime();
		long firings = 0;
		for (long now = start; now - start < nanos; firings++) {
			client.fire();
			long end = System.nanoTime();
			if (micros != null) {
				micros.recordValue(TimeUnit.NANOSECONDS.toMicros(end - now));
			}
			now = end;
		}
		return firings;
	}

	/**
	 * What happened in the measured window.
	 * @param firings firings, each of which ran the job
	 * @param nanos the window's length
	 * @param cost what the window cost Redis and this JVM
	 * @param micros how long each firing took, in microseconds
	 */
	record Window(long firings, long nanos, CostMeter.Cost cost, Histogram micros) {

		double perSecond() {
			return this.firings * 1e9 / this.nanos;
		}

		double per(long total) {
			return (this.firings > 0) ? (double) total / this.firings : Double.NaN;
		}

	}

}
