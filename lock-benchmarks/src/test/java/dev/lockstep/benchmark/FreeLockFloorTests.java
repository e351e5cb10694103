package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The floor E reads its makespans against: the run's own task times through a lock that costs nothing. */
class FreeLockFloorTests {

	@Test
	void tasksThatTakeExactlyTheirWorkGiveTheBestDispatchOfTheScenario() {
		GroupJob job = new GroupJob("j", 64, 50, 5_000, 2, 16);

		// the second JVM's first tasks wait for the first JVM's of the same groups: one task more than the ideal
		assertThat(job.idealMicros()).isEqualTo(500_000);
		assertThat(FreeLockFloor.makespanMicros(job, runs(job, 5_000, -1, 0))).isEqualTo(505_000);
	}

	@Test
	void aSlowTaskHoldsUpItsGroupAndTheThreadsThatWaitForIt() {
		GroupJob job = new GroupJob("j", 64, 50, 5_000, 2, 16);

		// group 0's first task takes 300 ms: its 49 later tasks follow it one after another
		long floor = FreeLockFloor.makespanMicros(job, runs(job, 5_000, 0, 300_000));

		assertThat(floor).isGreaterThanOrEqualTo(300_000 + 49 * 5_000).isGreaterThan(505_000);
	}

	@Test
	void oneGroupRunsItsTasksBackToBackWhateverTheThreads() {
		GroupJob job = new GroupJob("j", 1, 4, 1_000, 2, 3);
		List<GroupTaskRun> runs = List.of(new GroupTaskRun(0, 0, 0, 1_000), new GroupTaskRun(0, 1, 0, 2_000),
				new GroupTaskRun(0, 2, 0, 3_000), new GroupTaskRun(0, 3, 0, 4_000));

		assertThat(FreeLockFloor.makespanMicros(job, runs)).isEqualTo(10_000);
	}

	/** One run per task, each {@code micros} long but the first of {@code slowGroup}, {@code slowMicros} long. */
	private static List<GroupTaskRun> runs(GroupJob job, long micros, int slowGroup, long slowMicros) {
		List<GroupTaskRun> runs = new ArrayList<>();
		for (int group = 0; group < job.groups(); group++) {
			for (int sequence = 0; sequence < job.tasksPerGroup(); sequence++) {
				long duration = (group == slowGroup && sequence == 0) ? slowMicros : micros;
				runs.add(new GroupTaskRun(group, sequence, 1_000_000, 1_000_000 + duration));
			}
		}
		return runs;
	}

}
