package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of a benchmark run as Markdown: the environment, one table with every library's
 * figure per scenario and Lockstep's ratio to it, the target checks, the overlap check and any
 * failed runs.
 * @param environment machine, JVM, Redis and library versions
 * @param command the command line that produced the run
 * @param settings rounds and durations
 * @param results one entry per scenario that ran
 */
record BenchmarkReport(BenchmarkEnvironment environment, String command, BenchmarkSettings settings,
		List<ScenarioResults> results) {

	/** Times two holders held one lock at once, over all scenarios; anything but 0 is a broken lock. */
	long overlaps() {
		return this.results.stream().mapToLong(ScenarioResults::overlaps).sum();
	}

	List<String> failures() {
		return this.results.stream().flatMap((result) -> result.failures().stream()).toList();
	}

	List<TargetCheck> targets() {
		return this.results.stream().flatMap((result) -> result.scenario().targets(result).stream()).toList();
	}

	String markdown() {
		StringBuilder out = new StringBuilder();
		out.append("## Lockstep benchmark\n\n");
		out.append("- Machine: ").append(this.environment.machine()).append('\n');
		out.append("- JVM: ").append(this.environment.jvm()).append('\n');
		out.append("- Redis: ").append(this.environment.redis()).append('\n');
		out.append("- Libraries: ").append(this.environment.libraries()).append('\n');
		out.append("- Runs: ").append(this.settings.rounds()).append(" round(s)")
			.append(" after ").append(seconds(this.settings.libraryWarmup().toMillis()))
			.append(" of unrecorded locking per library")
			.append(", libraries interleaved (order rotated each round); rates and costs are medians over rounds,")
			.append(" latency percentiles are over all timed trials; windows of ")
			.append(seconds(this.settings.warmup().toMillis())).append(" warm-up + ")
			.append(seconds(this.settings.measure().toMillis())).append(" measured; ")
			.append(this.settings.latencyTrials())
			.append(" timed hand-offs per library; ")
			.append(this.settings.groupJobs())
			.append(" measured serial-group job(s) per library and round\n");
		out.append("- Command: `").append(this.command).append("`\n\n");
		table(out);
		out.append("\nIn parentheses: Lockstep's figure divided by that library's. ↑ higher is better, ↓ lower is better.\n\n");
		for (ScenarioResults result : this.results) {
			out.append("- ").append(result.scenario().id()).append(": ").append(result.scenario().description()).append('\n');
		}
		List<TargetCheck> targets = targets();
		if (!targets.isEmpty()) {
			out.append("\n### Targets\n\n");
			for (TargetCheck check : targets) {
				out.append("- ").append(check.scenario()).append(": ").append(check.target()).append(": **")
					.append(check.verdict().label()).append("**")
					.append(check.evidence().isEmpty() ? "" : " (" + check.evidence() + ")").append('\n');
			}
		}
		out.append("\nOverlap check: ").append(overlaps()).append(" overlapping holders in all runs (must be 0).\n");
		List<String> failures = failures();
		if (!failures.isEmpty()) {
			out.append("\n### Failed runs\n\n");
			failures.forEach((failure) -> out.append("- ").append(failure).append('\n'));
		}
		return out.toString();
	}

	private void table(StringBuilder out) {
		List<Library> columns = new ArrayList<>();
		for (Library library : Library.values()) {
			if (this.results.stream().anyMatch((result) -> result.libraries().contains(library))) {
				columns.add(library);
			}
		}
		out.append("| Scenario | Figure |");
		columns.forEach((library) -> out.append(' ').append(library.title()).append(" |"));
		out.append("\n|---|---|");
		columns.forEach((library) -> out.append("---:|"));
		out.append('\n');
		for (ScenarioResults result : this.results) {
			for (Metric metric : result.scenario().metrics()) {
				out.append("| ").append(result.scenario().id()).append(" | ").append(metric.label()).append(" |");
				Double lockstep = result.figure(Library.LOCKSTEP, metric);
				for (Library library : columns) {
					out.append(' ').append(cell(result, metric, library, lockstep)).append(" |");
				}
				out.append('\n');
			}
		}
	}

	private static String cell(ScenarioResults result, Metric metric, Library library, @Nullable Double lockstep) {
		if (!result.libraries().contains(library) || (metric.lockstepOnly() && library != Library.LOCKSTEP)) {
			return "–";
		}
		Double figure = result.figure(library, metric);
		if (figure == null || figure.isNaN()) {
			return "n/a";
		}
		String text = metric.format().apply(figure);
		boolean ratio = library != Library.LOCKSTEP && metric.better() != Metric.Better.NEITHER && lockstep != null
				&& !lockstep.isNaN() && figure > 0;
		return ratio ? text + String.format(Locale.ROOT, " (%.2fx)", lockstep / figure) : text;
	}

	private static String seconds(long millis) {
		return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
	}

}
