package dev.lockstep.benchmark;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * One row of a scenario in the report: how its figure is drawn from the runs of all rounds and
 * how it is written.
 * @param name the row's label, also the key of the value in {@link RunResult}
 * @param better which way is better, or {@link Better#NEITHER} for a row without ratios
 * @param aggregate the figure from all runs of one library (null without any)
 * @param format how the figure is written
 * @param lockstepOnly a figure only Lockstep has (the other libraries' cells say "–", not "n/a")
 */
record Metric(String name, Better better, Function<List<RunResult>, @Nullable Double> aggregate,
		Function<Double, String> format, boolean lockstepOnly) {

	Metric(String name, Better better, Function<List<RunResult>, @Nullable Double> aggregate,
			Function<Double, String> format) {
		this(name, better, aggregate, format, false);
	}

	/** This figure, had only by Lockstep. */
	Metric onlyLockstep() {
		return new Metric(this.name, this.better, this.aggregate, this.format, true);
	}

	/** Which way a figure is better; it decides the arrow next to the label. */
	enum Better {

		HIGHER, LOWER, NEITHER

	}

	/** Operations per second, the median over rounds, written like {@code 3.6k}. */
	static Metric rate(String name) {
		return new Metric(name, Better.HIGHER, (runs) -> median(runs, name), Metric::formatRate);
	}

	/** A figure where lower is better (a latency in ms, a count per operation), median over rounds. */
	static Metric cost(String name) {
		return new Metric(name, Better.LOWER, (runs) -> median(runs, name), Metric::formatDecimal);
	}

	/** The spread of a figure where lower is better: its highest over all rounds, no ratio. */
	static Metric highest(String name) {
		return new Metric(name, Better.NEITHER, (runs) -> runs.stream().map((run) -> run.value(name)).filter(Objects::nonNull)
			.max(Double::compare).orElse(null), Metric::formatDecimal);
	}

	/** The other end of that spread: the lowest over all rounds, no ratio. */
	static Metric lowest(String name) {
		return new Metric(name, Better.NEITHER, (runs) -> runs.stream().map((run) -> run.value(name)).filter(Objects::nonNull)
			.min(Double::compare).orElse(null), Metric::formatDecimal);
	}

	/** A count worth knowing but not worth a ratio, median over rounds. */
	static Metric count(String name) {
		return new Metric(name, Better.NEITHER, (runs) -> median(runs, name),
				(value) -> String.format(Locale.ROOT, (value == Math.rint(value)) ? "%.0f" : "%.1f", value));
	}

	/** A figure to read the others against, not worth a ratio, median over rounds. */
	static Metric reference(String name) {
		return new Metric(name, Better.NEITHER, (runs) -> median(runs, name), Metric::formatDecimal);
	}

	/** A percentile, in milliseconds, of all latency samples of all rounds together. */
	static Metric latencyPercentile(String name, double percentile) {
		return new Metric(name, Better.LOWER, (runs) -> mergedPercentile(runs, percentile, 1000.0), Metric::formatDecimal);
	}

	/** A percentile, in microseconds, of all latency samples of all rounds together. */
	static Metric latencyPercentileMicros(String name, double percentile) {
		return new Metric(name, Better.LOWER, (runs) -> mergedPercentile(runs, percentile, 1.0), Metric::formatDecimal);
	}

	/** Times two holders held one lock at once, summed over rounds; anything but 0 is a broken lock. */
	static Metric overlaps() {
		return new Metric("overlaps (must be 0)", Better.NEITHER,
				(runs) -> runs.isEmpty() ? null : (double) runs.stream().mapToLong(RunResult::overlaps).sum(),
				(value) -> String.format(Locale.ROOT, "%.0f", value));
	}

	/** The label with the direction that is better. */
	String label() {
		return switch (this.better) {
			case HIGHER -> this.name + " ↑";
			case LOWER -> this.name + " ↓";
			case NEITHER -> this.name;
		};
	}

	static @Nullable Double median(List<RunResult> runs, String name) {
		List<Double> values = runs.stream().map((run) -> run.value(name)).filter(Objects::nonNull).sorted().toList();
		if (values.isEmpty()) {
			return null;
		}
		int middle = values.size() / 2;
		return (values.size() % 2 == 1) ? values.get(middle) : (values.get(middle - 1) + values.get(middle)) / 2;
	}

	private static @Nullable Double mergedPercentile(List<RunResult> runs, double percentile, double microsPerUnit) {
		Histogram merged = new Histogram(3);
		runs.stream().map(RunResult::latencies).filter(Objects::nonNull).forEach(merged::add);
		if (merged.getTotalCount() == 0) {
			return null;
		}
		return merged.getValueAtPercentile(percentile) / microsPerUnit;
	}

	static String formatRate(double value) {
		if (value >= 10_000) {
			return String.format(Locale.ROOT, "%.1fk", value / 1000);
		}
		if (value >= 1000) {
			return String.format(Locale.ROOT, "%.2fk", value / 1000);
		}
		return String.format(Locale.ROOT, "%.0f", value);
	}

	static String formatDecimal(double value) {
		if (value >= 100) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		if (value >= 10) {
			return String.format(Locale.ROOT, "%.1f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
