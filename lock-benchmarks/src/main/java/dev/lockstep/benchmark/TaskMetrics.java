package dev.lockstep.benchmark;

/**
 * The report rows that more than one of the task scenarios (E, G and Q) shows, each defined once
 * here: the makespan of a run's tasks and what each task cost Redis.
 */
final class TaskMetrics {

	static final Metric MAKESPAN = Metric.cost("makespan ms");

	static final Metric VERSUS_IDEAL = Metric.cost("makespan / ideal");

	static final Metric COMMANDS = Metric.cost("Redis commands/task");

	static final Metric REDIS_CPU = Metric.cost("Redis CPU µs/task");

	static final Metric OUT_OF_SUBMISSION_ORDER = Metric.count("tasks out of submission order");

	private TaskMetrics() {
	}

}
