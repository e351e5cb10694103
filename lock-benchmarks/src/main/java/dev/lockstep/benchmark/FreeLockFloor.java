package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The makespan a serial-group lock that cost nothing would give one {@link GroupJob}, with the
 * task durations a run really had: the run's dispatch replayed in time, each JVM's threads taking
 * the JVM's tasks in submission order as soon as they are free, each group's turns first come,
 * first served, and not a microsecond spent between a group's turns or a thread's tasks. The
 * difference between a run's makespan and this floor is what the lock cost; the difference
 * between this floor and the ideal is what the machine cost (tasks that sleep 5 ms and wake
 * late on a busy machine, and threads that wait for a group's earlier task on the other JVM).
 */
final class FreeLockFloor {

	private FreeLockFloor() {
	}

	/** The floor's makespan in microseconds; {@code runs} holds one run of every task of {@code job}. */
	static long makespanMicros(GroupJob job, List<GroupTaskRun> runs) {
		Map<GroupJob.Task, Long> durations = new HashMap<>();
		for (GroupTaskRun run : runs) {
			durations.put(new GroupJob.Task(run.group(), run.sequence()), run.endMicros() - run.startMicros());
		}
		long[] groupFreeAt = new long[job.groups()];
		int[] nextOfJvm = new int[job.jvms()];
		List<List<GroupJob.Task>> shares = new ArrayList<>();
		// a free thread: {when it is free, its JVM, its number}, earliest first
		PriorityQueue<long[]> freeThreads = new PriorityQueue<>((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0])
				: (a[1] != b[1]) ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
		for (int jvm = 0; jvm < job.jvms(); jvm++) {
			shares.add(job.share(jvm));
			for (int thread = 0; thread < job.threads(); thread++) {
				freeThreads.add(new long[] { 0, jvm, thread });
			}
		}
		long end = 0;
		while (!freeThreads.isEmpty()) {
			long[] thread = freeThreads.poll();
			int jvm = (int) thread[1];
			List<GroupJob.Task> share = shares.get(jvm);
			if (nextOfJvm[jvm] == share.size()) {
				continue;
			}
			GroupJob.Task task = share.get(nextOfJvm[jvm]++);
			// threads arrive in time order, so a group's turns go in order of arrival
			long start = Math.max(thread[0], groupFreeAt[task.group()]);
			long finish = start + durations.get(task);
			groupFreeAt[task.group()] = finish;
			end = Math.max(end, finish);
			freeThreads.add(new long[] { finish, jvm, thread[2] });
		}
		return end;
	}

}
