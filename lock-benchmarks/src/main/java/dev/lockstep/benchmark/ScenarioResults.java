package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/** Every run of one scenario over all rounds, by library, and the runs that failed. */
final class ScenarioResults {

	private final Scenario scenario;

	private final List<Library> libraries;

	private final Map<Library, List<RunResult>> runs = new EnumMap<>(Library.class);

	private final List<String> failures = new ArrayList<>();

	/** Results of {@code scenario} for those of its libraries that are in {@code selected}. */
	ScenarioResults(Scenario scenario, Set<Library> selected) {
		this.scenario = scenario;
		this.libraries = scenario.libraries().stream().filter(selected::contains).toList();
	}

	Scenario scenario() {
		return this.scenario;
	}

	/** The libraries this scenario runs in this benchmark. */
	List<Library> libraries() {
		return this.libraries;
	}

	void add(Library library, RunResult result) {
		this.runs.computeIfAbsent(library, (key) -> new ArrayList<>()).add(result);
	}

	void failed(Library library, String round, Throwable error) {
		this.failures.add(this.scenario.id() + " " + library.title() + " round " + round + ": " + error);
	}

	List<String> failures() {
		return this.failures;
	}

	/** The library's figure for {@code metric} over all its rounds, or null if it has none. */
	@Nullable Double figure(Library library, Metric metric) {
		List<RunResult> results = this.runs.get(library);
		return (results != null) ? metric.aggregate().apply(results) : null;
	}

	/** The figure of the metric named {@code name}. */
	@Nullable Double figure(Library library, String name) {
		return this.scenario.metrics()
			.stream()
			.filter((metric) -> metric.name().equals(name))
			.findFirst()
			.map((metric) -> figure(library, metric))
			.orElse(null);
	}

	/** Times two holders held one lock at once in any run of this scenario. */
	long overlaps() {
		return this.runs.values().stream().flatMap(List::stream).mapToLong(RunResult::overlaps).sum();
	}

}
