package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the task runs of one {@link GroupJob}, from all JVMs together, show.
 * @param makespanMicros from the start of the job to the end of its last task
 * @param overlaps tasks that started before the previous task of their group had ended; anything
 * but 0 means a group let two tasks in at once
 * @param outOfOrder tasks that started after a later task of their group from the same JVM.
 * That one was taken from the JVM's queue a whole pass over the groups later, so it reached the
 * group's queue in Redis later, and a first-come-first-served group never lets it go first
 * (tasks of one group from different JVMs are taken at about the same time and race to Redis,
 * so their order is not checked)
 * @param meanWorkMicros how long a task's work took on average (the nominal time plus the
 * oversleep of the machine)
 */
record GroupJobTimeline(long makespanMicros, long overlaps, long outOfOrder, double meanWorkMicros) {

	/**
	 * @param job the job
	 * @param runs the runs of all its tasks, from every JVM
	 * @param startMicros when the first JVM started the job
	 */
	static GroupJobTimeline of(GroupJob job, List<GroupTaskRun> runs, long startMicros) {
		checkEveryTaskRanOnce(job, runs);
		List<List<GroupTaskRun>> byGroup = new ArrayList<>();
		for (int group = 0; group < job.groups(); group++) {
			byGroup.add(new ArrayList<>());
		}
		long end = startMicros;
		long work = 0;
		for (GroupTaskRun run : runs) {
			byGroup.get(run.group()).add(run);
			end = Math.max(end, run.endMicros());
			work += run.endMicros() - run.startMicros();
		}
		long overlaps = 0;
		long outOfOrder = 0;
		for (List<GroupTaskRun> group : byGroup) {
			group.sort(Comparator.comparingLong(GroupTaskRun::startMicros));
			long previousEnd = Long.MIN_VALUE;
			int[] latestSequenceOfJvm = new int[job.jvms()];
			Arrays.fill(latestSequenceOfJvm, -1);
			for (GroupTaskRun run : group) {
				if (run.startMicros() < previousEnd) {
					overlaps++;
				}
				int jvm = job.jvmOf(run.sequence());
				if (run.sequence() < latestSequenceOfJvm[jvm]) {
					outOfOrder++;
				}
				previousEnd = Math.max(previousEnd, run.endMicros());
				latestSequenceOfJvm[jvm] = Math.max(latestSequenceOfJvm[jvm], run.sequence());
			}
		}
		return new GroupJobTimeline(end - startMicros, overlaps, outOfOrder, (double) work / runs.size());
	}

	private static void checkEveryTaskRanOnce(GroupJob job, List<GroupTaskRun> runs) {
		Set<GroupJob.Task> seen = new HashSet<>();
		for (GroupTaskRun run : runs) {
			if (run.group() < 0 || run.group() >= job.groups() || !seen.add(new GroupJob.Task(run.group(), run.sequence()))) {
				throw new IllegalStateException("Job " + job.name() + ": task " + run.group() + "/" + run.sequence()
						+ " is unknown or ran twice");
			}
		}
		if (seen.size() != job.tasks()) {
			throw new IllegalStateException("Job " + job.name() + ": " + seen.size() + " of " + job.tasks() + " tasks ran");
		}
	}

}
