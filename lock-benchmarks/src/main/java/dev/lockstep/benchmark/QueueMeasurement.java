package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/** What one run showed: its start, its task runs and the Redis commands it cost. */
record QueueMeasurement(long startMicros, List<QueueTaskRun> runs, long commands, String commandsPerTask,
		@Nullable Long emptyTakes, @Nullable Long wokenMisses, @Nullable Long redisCpuMicros) {

	QueueMeasurement(long startMicros, List<QueueTaskRun> runs, long commands, String commandsPerTask, long redisCpuMicros) {
		this(startMicros, runs, commands, commandsPerTask, null, null, redisCpuMicros);
	}

	RunResult result(QueueWorkload workload) {
		Map<Integer, List<QueueTaskRun>> byGroup = new HashMap<>();
		runs().forEach((run) -> byGroup.computeIfAbsent(run.group(), (group) -> new ArrayList<>()).add(run));
		long overlaps = 0;
		long outOfOrder = 0;
		for (List<QueueTaskRun> group : byGroup.values()) {
			group.sort(Comparator.comparingLong(QueueTaskRun::startMicros));
			long previousEnd = Long.MIN_VALUE;
			int latest = -1;
			for (QueueTaskRun run : group) {
				if (run.startMicros() < previousEnd) {
					overlaps++;
				}
				if (run.sequence() < latest) {
					outOfOrder++;
				}
				previousEnd = Math.max(previousEnd, run.endMicros());
				latest = Math.max(latest, run.sequence());
			}
		}
		long lastEnd = runs().stream().mapToLong(QueueTaskRun::endMicros).max().orElse(this.startMicros);
		long makespan = lastEnd - this.startMicros;
		boolean finished = runs().size() == workload.tasks();
		if (!finished && !runs().isEmpty()) {
			makespan = makespan * workload.tasks() / runs().size();
		}
		Histogram coldWaits = new Histogram(3);
		runs().stream()
			.filter((run) -> run.group() != 0)
			.forEach((run) -> coldWaits.recordValue(Math.max(0, run.startMicros() - run.arrivedMicros())));
		long coldNotRun = (long) workload.coldGroups() * workload.coldTasks() - runs().stream().filter((run) -> run.group() != 0).count();
		if (coldNotRun > 0) {
			coldWaits.recordValueWithCount(Math.max(1, lastEnd - this.startMicros), coldNotRun);
		}
		List<QueueTaskRun> hot = byGroup.getOrDefault(0, List.of());
		Histogram hotGaps = new Histogram(3);
		long hotGapsTotal = 0;
		for (int i = 1; i < hot.size(); i++) {
			long gap = Math.max(0, hot.get(i).startMicros() - hot.get(i - 1).endMicros());
			hotGaps.recordValue(gap);
			hotGapsTotal += gap;
		}
		// the span is the hot tasks' own time (the work's sleep, woken late on busy cores) plus the gaps
		double hotOwnMean = hot.stream().mapToLong((run) -> run.endMicros() - run.startMicros()).average().orElse(0);
		double hotGapMean = (hot.size() > 1) ? (double) hotGapsTotal / (hot.size() - 1) : 0;
		long hotSpan = hot.isEmpty() ? 0 : hot.get(hot.size() - 1).endMicros() - hot.get(0).startMicros();
		RunResult result = new RunResult();
		if (this.emptyTakes != null) {
			result.with(QueueCostScenario.EMPTY_TAKES.name(), (double) this.emptyTakes / Math.max(1, runs().size()));
		}
		if (this.redisCpuMicros != null) {
			result.with(TaskMetrics.REDIS_CPU.name(), (double) this.redisCpuMicros / Math.max(1, runs().size()));
		}
		if (this.wokenMisses != null) {
			result.with(QueueCostScenario.WOKEN_MISSES.name(), (double) this.wokenMisses / Math.max(1, runs().size()));
		}
		return result.with(TaskMetrics.MAKESPAN.name(), makespan / 1000.0)
			.with(TaskMetrics.VERSUS_IDEAL.name(), (double) makespan / workload.idealMicros())
			.with(TaskMetrics.COMMANDS.name(), (double) this.commands / Math.max(1, runs().size()))
			.with(TaskMetrics.OUT_OF_SUBMISSION_ORDER.name(), outOfOrder)
			.withOverlaps(overlaps)
			.withLatencies(coldWaits)
			.withNote(String.format(Locale.ROOT, "%d of %d tasks ran%s; hot group: first start %.0f ms, span %.0f ms, "
					+ "a task's own time mean %.3f ms (its work %.3f ms), gap between its tasks mean %.3f ms, p50 %.2f ms, "
					+ "p99 %.2f ms; per task: %s", runs().size(), workload.tasks(),
					finished ? "" : " before the time limit (makespan projected; cold tasks not run count as waiting "
							+ "the whole run)",
					hot.isEmpty() ? 0.0 : (hot.get(0).startMicros() - this.startMicros) / 1000.0, hotSpan / 1000.0,
					hotOwnMean / 1000.0, workload.workMicros() / 1000.0, hotGapMean / 1000.0, hotGaps.getValueAtPercentile(50) / 1000.0, hotGaps.getValueAtPercentile(99) / 1000.0,
					this.commandsPerTask));
	}

}
