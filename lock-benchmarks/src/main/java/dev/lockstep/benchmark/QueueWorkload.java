package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;

/**
 * The workload: {@code hotTasks} in group 0 and {@code coldTasks} in each of {@code coldGroups}
 * groups, {@code workMicros} each.
 */
record QueueWorkload(int hotTasks, int coldGroups, int coldTasks, long workMicros) {

	static QueueWorkload full() {
		return new QueueWorkload(2000, 200, 5, 2000);
	}

	/** A smoke run's: the same shape, a tenth of the tasks. */
	static QueueWorkload quick() {
		return new QueueWorkload(200, 20, 5, 2000);
	}

	/** Unrecorded, before a measured run: compiles the code paths. */
	static QueueWorkload warmup() {
		return new QueueWorkload(1000, 100, 5, 200);
	}

	int tasks() {
		return this.hotTasks + this.coldGroups * this.coldTasks;
	}

	/** The hot group's chain of work, or all work over all workers, whichever is longer. */
	long idealMicros() {
		return Math.max(this.hotTasks * this.workMicros, tasks() * this.workMicros / SerialQueueScenario.THREADS);
	}

	/** Two hot tasks to one cold, the cold ones group by group in each round of sequence numbers. */
	List<QueueTask> arrivals() {
		List<QueueTask> cold = new ArrayList<>();
		for (int sequence = 0; sequence < this.coldTasks; sequence++) {
			for (int group = 1; group <= this.coldGroups; group++) {
				cold.add(new QueueTask(group, sequence, this.workMicros, 0));
			}
		}
		List<QueueTask> arrivals = new ArrayList<>(tasks());
		int hot = 0;
		int coldIndex = 0;
		while (hot < this.hotTasks || coldIndex < cold.size()) {
			boolean takeHot = coldIndex >= cold.size()
					|| (hot < this.hotTasks && (long) hot * cold.size() <= (long) coldIndex * this.hotTasks);
			arrivals.add(takeHot ? new QueueTask(0, hot++, this.workMicros, 0) : cold.get(coldIndex++));
		}
		return arrivals;
	}

}
