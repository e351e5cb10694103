package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Q-SCALE: scenario Q's 100,000 tasks on Lockstep's queue over 10, 1,000 and 100,000 groups in
 * turn (one group then holds 10,000, 100 or 1 task): whether tasks/s and commands per task stay
 * flat as groups grow, and whether Redis's keys and used memory come back to where they were once
 * the queue drained and the deduplication window (2 s here) passed.
 */
final class QueueScaleScenario implements Scenario {

	static final int[] GROUPS = { 10, 1_000, 100_000 };

	private static final Duration WINDOW = Duration.ofSeconds(2);

	static final Metric KEYS_LEFT = Metric.count("Redis keys left after the window");

	static final Metric MEMORY_LEFT = Metric.count("Redis used_memory left after the window, KB");

	private final WorkerJvms workers = new WorkerJvms("bench-q-scale-worker", QueueWorker.class,
			SerialQueueScenario.WORKER_JVMS);

	static Metric tasksPerSecond(int groups) {
		return Metric.rate(String.format(Locale.ROOT, "tasks/s, %,d groups", groups));
	}

	static Metric commands(int groups) {
		return Metric.cost(String.format(Locale.ROOT, "Redis commands/task, %,d groups", groups));
	}

	@Override
	public Definition definition() {
		List<Metric> metrics = new ArrayList<>();
		for (int groups : GROUPS) {
			metrics.add(tasksPerSecond(groups));
		}
		for (int groups : GROUPS) {
			metrics.add(commands(groups));
		}
		metrics.add(KEYS_LEFT);
		metrics.add(MEMORY_LEFT);
		return new Definition("Q-SCALE", "Q's " + QueueCostScenario.TASKS + " tasks on Lockstep's queue over 10, 1,000 and 100,000 "
				+ "groups: flat as groups grow, nothing left once drained", List.of(Library.LOCKSTEP), metrics);
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		int tasks = context.settings().isQuick() ? 5_000 : QueueCostScenario.TASKS;
		BenchmarkRedis redis = context.redis();
		if (!this.workers.isRunning()) {
			// warmed as in Q, on a run as large
			QueueDrain.lockstep(redis, this.workers.running(redis), context.key("q-scale-warm-up"), tasks, 1_000, WINDOW);
			awaitKeys(redis, 0);
		}
		long keysBefore = redis.keyCount();
		long memoryBefore = redis.usedMemory();
		RunResult result = new RunResult();
		StringBuilder note = new StringBuilder();
		for (int groups : GROUPS) {
			QueueDrain.Drained drained = QueueDrain.lockstep(redis, this.workers.running(redis), context.key("q-scale-" + groups), tasks,
					Math.min(groups, tasks), WINDOW);
			result.with(tasksPerSecond(groups).name(), drained.tasksPerSecond())
				.with(commands(groups).name(), (double) drained.commands() / tasks);
			note.append(String.format(Locale.ROOT, "%,d groups: %d of %d ran, %d out of order, %.2f empty takes/task; ", groups,
					drained.ran(), tasks, drained.outOfOrder(), (double) drained.emptyTakes() / tasks));
			if (drained.ran() != tasks || drained.outOfOrder() != 0) {
				throw new IllegalStateException("Q-SCALE over " + groups + " groups: " + note);
			}
		}
		// the DONE records expire with the window; Redis deletes expired keys a little after
		awaitKeys(redis, keysBefore);
		return result.with(KEYS_LEFT.name(), redis.keyCount() - keysBefore)
			.with(MEMORY_LEFT.name(), (redis.usedMemory() - memoryBefore) / 1024.0)
			.withNote(note.toString());
	}

	private static void awaitKeys(BenchmarkRedis redis, long keys) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		Thread.sleep(WINDOW.toMillis());
		while (redis.keyCount() > keys && System.nanoTime() < deadline) {
			Thread.sleep(200);
		}
	}

	@Override
	public void close() {
		this.workers.close();
	}

}
