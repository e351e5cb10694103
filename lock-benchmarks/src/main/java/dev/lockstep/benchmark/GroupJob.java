package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;

/**
 * The workload of scenario E: {@code groups} groups of {@code tasksPerGroup} tasks, each working
 * {@code workMicros}, submitted from {@code jvms} JVMs with {@code threads} worker threads each.
 * Each JVM gets every {@code jvms}-th task of each group, interleaved with the other JVMs' (JVM 0
 * tasks 0, 2, 4, ..., JVM 1 tasks 1, 3, 5, ... with two JVMs), and queues its share in submission
 * order: all groups' first task, then all groups' next task, and so on. So consecutive tasks of a
 * group wait on different JVMs, and the group's queue in Redis decides who goes next.
 * @param name distinguishes the job's groups from every other job's
 * @param groups how many groups
 * @param tasksPerGroup tasks in each group
 * @param workMicros how long each task works (sleeps)
 * @param jvms how many JVMs submit tasks
 * @param threads worker threads per JVM
 */
record GroupJob(String name, int groups, int tasksPerGroup, long workMicros, int jvms, int threads) {

	/** One task: its group, and its place in the group's submission order (from 0). */
	record Task(int group, int sequence) {
	}

	/** The group's name as passed to the serial groups. */
	String group(int group) {
		return this.name + "-g" + group;
	}

	int tasks() {
		return this.groups * this.tasksPerGroup;
	}

	/**
	 * The shortest makespan possible: all work spread evenly over all threads, or the longest
	 * group's work done back to back, whichever is longer.
	 */
	long idealMicros() {
		long spread = (long) tasks() * this.workMicros / ((long) this.jvms * this.threads);
		return Math.max(spread, this.tasksPerGroup * this.workMicros);
	}

	/** The JVM (from 0) that submits the task with this place in its group. */
	int jvmOf(int sequence) {
		return sequence % this.jvms;
	}

	/** The tasks JVM {@code jvm} (from 0) submits, in submission order. */
	List<Task> share(int jvm) {
		List<Task> tasks = new ArrayList<>();
		// jvmOf(sequence) == jvm
		for (int sequence = jvm; sequence < this.tasksPerGroup; sequence += this.jvms) {
			for (int group = 0; group < this.groups; group++) {
				tasks.add(new Task(group, sequence));
			}
		}
		return tasks;
	}

	/** The job as one line for a worker JVM, see {@link #parse}. */
	String toLine() {
		return String.join(" ", this.name, Integer.toString(this.groups), Integer.toString(this.tasksPerGroup),
				Long.toString(this.workMicros), Integer.toString(this.jvms), Integer.toString(this.threads));
	}

	static GroupJob parse(String line) {
		String[] parts = line.trim().split(" ");
		if (parts.length != 6) {
			throw new IllegalArgumentException("Not a job: '" + line + "'");
		}
		return new GroupJob(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), Long.parseLong(parts[3]),
				Integer.parseInt(parts[4]), Integer.parseInt(parts[5]));
	}

}
