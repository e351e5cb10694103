package dev.lockstep.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one measurement of one library: named values, the number of times two holders
 * held one lock at once, and latency samples where the scenario takes them.
 */
final class RunResult {

	private final Map<String, Double> values = new LinkedHashMap<>();

	private long overlaps;

	private @Nullable Histogram latencies;

	private String note = "";

	RunResult with(String name, double value) {
		this.values.put(name, value);
		return this;
	}

	RunResult withOverlaps(long overlaps) {
		this.overlaps = overlaps;
		return this;
	}

	/** Latency samples in microseconds; merged over the rounds rather than taken as a median. */
	RunResult withLatencies(Histogram latencies) {
		this.latencies = latencies;
		return this;
	}

	/** Detail for the progress log only, such as the commands behind a commands-per-operation figure. */
	RunResult withNote(String note) {
		this.note = note;
		return this;
	}

	@Nullable Double value(String name) {
		return this.values.get(name);
	}

	long overlaps() {
		return this.overlaps;
	}

	@Nullable Histogram latencies() {
		return this.latencies;
	}

	@Override
	public String toString() {
		return this.values + ", overlaps " + this.overlaps + (this.note.isEmpty() ? "" : "; " + this.note);
	}

}
