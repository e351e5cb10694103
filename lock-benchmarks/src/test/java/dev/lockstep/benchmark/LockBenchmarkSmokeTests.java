package dev.lockstep.benchmark;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the benchmark in its quickest form on the scenarios with the most moving parts (many
 * clients on one key; a blocked waiter; worker JVMs; cron firings), every library included, and
 * checks the harness rather than the figures: no lock let two holders in, every run produced its
 * figures, the table came out. Both together stay well under a minute.
 */
class LockBenchmarkSmokeTests {

	@Test
	@Timeout(120)
	void quickRunOfContentionAndHandOffProducesTheTableWithoutOverlaps() {
		long start = System.nanoTime();
		BenchmarkOptions options = BenchmarkOptions.parse("--quick", "--scenarios", "C16,D", "--measure-seconds", "0.5",
				"--trials", "10");

		BenchmarkReport report = LockBenchmark.run(options, System.out);
		String markdown = report.markdown();
		System.out.println(markdown);

		assertThat(report.failures()).isEmpty();
		assertThat(report.overlaps()).isZero();
		assertThat(markdown).contains("| Scenario | Figure | Lockstep | raw SET NX | Redisson RLock |")
			.contains("| C16 | hand-offs/s ↑ |")
			.contains("| C16 | overlaps (must be 0) | 0 | 0 | 0 | 0 | – |")
			.contains("| D | p50 hand-off ms ↓ |")
			.contains("Overlap check: 0 overlapping holders")
			.doesNotContain("n/a");
		assertThat(report.targets()).extracting(TargetCheck::scenario).contains("C16", "D");
		assertThat(report.targets()).filteredOn((check) -> check.scenario().equals("D"))
			.extracting(TargetCheck::target)
			.containsExactly("Lockstep p50 ≤ 0.65x Redisson's", "Lockstep p99 ≤ half of Redisson's");
		assertThat(report.targets()).filteredOn((check) -> check.scenario().equals("D"))
			.extracting(TargetCheck::verdict)
			.doesNotContain(TargetCheck.Verdict.NOT_MEASURED);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(40));
	}

	/** One serial-group job per library in two worker JVMs, and half a second of cron firings. */
	@Test
	@Timeout(120)
	void quickRunOfSerialGroupsAndCronFiringsProducesTheTableWithoutOverlaps() {
		long start = System.nanoTime();
		BenchmarkOptions options = BenchmarkOptions.parse("--quick", "--scenarios", "E,F-CRON", "--measure-seconds", "0.5");

		BenchmarkReport report = LockBenchmark.run(options, System.out);
		String markdown = report.markdown();
		System.out.println(markdown);

		assertThat(report.failures()).isEmpty();
		assertThat(report.overlaps()).isZero();
		assertThat(markdown).contains("| Scenario | Figure | Lockstep | Redisson RFairLock | ShedLock |")
			.contains("| E | makespan ms ↓ |")
			.contains("| E | free lock's makespan / ideal |")
			.contains("| E | tasks out of submission order |")
			.contains("| E | overlaps (must be 0) | 0 | 0 | – |")
			.contains("| F-CRON | p50 µs/firing ↓ |")
			.contains("| F-CRON | Redis commands/firing ↓ |")
			.doesNotContain("n/a");
		assertThat(report.targets()).extracting(TargetCheck::scenario).contains("E", "F-CRON");
		assertThat(report.targets()).filteredOn((check) -> check.scenario().equals("F-CRON"))
			.extracting(TargetCheck::target)
			.containsExactly("Lockstep ≥ ShedLock's firings/s", "Lockstep's Redis CPU per firing ≤ 1.5x ShedLock's");
		assertThat(report.targets()).filteredOn((check) -> check.scenario().equals("F-CRON"))
			.extracting(TargetCheck::verdict)
			.doesNotContain(TargetCheck.Verdict.NOT_MEASURED);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(40));
	}

	/** Scenario G at a tenth of its size: the queue in two worker JVMs, the blocking designs, field report 1's queue. */
	@Test
	@Timeout(120)
	void quickRunOfTheSerialQueueScenarioProducesTheTableWithoutOverlaps() {
		BenchmarkOptions options = BenchmarkOptions.parse("--quick", "--scenarios", "G");

		BenchmarkReport report = LockBenchmark.run(options, System.out);
		String markdown = report.markdown();
		System.out.println(markdown);

		assertThat(report.failures()).isEmpty();
		assertThat(report.overlaps()).isZero();
		assertThat(markdown)
			.contains("| Scenario | Figure | Lockstep | Redisson RFairLock | Lockstep @SerialGroup | field report 1's queue |")
			.contains("| G | makespan / ideal ↓ |")
			.contains("| G | p99 cold submit-to-start ms ↓ |")
			.contains("| G | Redis commands/task ↓ |")
			.contains("| G | overlaps (must be 0) | 0 | 0 | 0 | 0 |")
			.doesNotContain("n/a");
		assertThat(report.targets()).extracting(TargetCheck::scenario).contains("G");
	}

	/** Scenario H's three parts, small: many held locks, waiters from 2 to 16, many keys and what they leave. */
	@Test
	@Timeout(120)
	void quickRunOfTheScaleScenariosProducesTheTableWithNothingLeftBehind() {
		BenchmarkOptions options = BenchmarkOptions.parse("--quick", "--scenarios", "H-HELD,H-WAITERS,H-KEYS",
				"--measure-seconds", "0.5");

		BenchmarkReport report = LockBenchmark.run(options, System.out);
		String markdown = report.markdown();
		System.out.println(markdown);

		assertThat(report.failures()).isEmpty();
		assertThat(report.overlaps()).isZero();
		assertThat(markdown).contains("| H-HELD | Redis commands/s while holding ↓ |")
			.contains("| H-WAITERS | Redis commands/hand-off, 16 clients ↓ |")
			.contains("| H-WAITERS | overlaps (must be 0) | 0 | 0 | 0 |")
			// every library cleans up after itself: nothing a lock wrote outlives its release
			.contains("| H-KEYS | Redis keys left | 0 | 0 | 0 |")
			.doesNotContain("n/a");
		assertThat(report.targets()).extracting(TargetCheck::scenario).contains("H-WAITERS");
	}

}
