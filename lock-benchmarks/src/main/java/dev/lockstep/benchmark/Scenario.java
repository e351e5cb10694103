package dev.lockstep.benchmark;

import java.util.List;

/**
 * One workload of the benchmark, measured once per round for each library it compares. A new
 * scenario implements this and is added to {@link LockBenchmark#scenarios()}; the rounds, the
 * medians, the table and the target checks then come with it.
 */
interface Scenario {

	/** What the scenario is: its name, what it measures, the libraries it compares and its figures. */
	Definition definition();

	/** Short name in the table and for {@code --scenarios}, e.g. {@code C16}. */
	default String id() {
		return definition().id();
	}

	/** What the scenario measures, in one line of the report. */
	default String description() {
		return definition().description();
	}

	/** The libraries it compares; {@link Library#LOCKSTEP} among them, for the ratios. */
	default List<Library> libraries() {
		return definition().libraries();
	}

	/** Its figures, one table row each, in order. */
	default List<Metric> metrics() {
		return definition().metrics();
	}

	/**
	 * Measures one library once: opens the clients it needs, runs the workload and closes them,
	 * so that no library's idle clients add commands to another's measurement.
	 */
	RunResult run(Library library, RunContext context) throws Exception;

	/** The project's targets for this scenario, judged on the figures over all rounds. */
	default List<TargetCheck> targets(ScenarioResults results) {
		return List.of();
	}

	/** Releases what the scenario kept from round to round, such as child JVMs; called once, after the last round. */
	default void close() {
	}

	/**
	 * What a scenario is.
	 * @param id short name in the table and for {@code --scenarios}, e.g. {@code C16}
	 * @param description what the scenario measures, in one line of the report
	 * @param libraries the libraries it compares; {@link Library#LOCKSTEP} among them, for the ratios
	 * @param metrics its figures, one table row each, in order
	 */
	record Definition(String id, String description, List<Library> libraries, List<Metric> metrics) {
	}

}
