package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DistributedLock} on a method returning {@code Mono}, in three JVMs at once, each with
 * all its calls subscribed together: a {@link SectionProbe} in each sees every section through
 * Redis, and no two of one key ever overlap. The processes are reused for the control.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReactiveProcessTests {

	private static final Duration RUN_LIMIT = Duration.ofSeconds(90);

	private final List<JavaProcess> processes = new ArrayList<>();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	@AfterEach
	void cleanUp() {
		this.processes.forEach(JavaProcess::kill);
	}

	/**
	 * The same processes then run the same calls without the annotation, as the control: the
	 * probe sees them overlap, so its zero above means something.
	 */
	@Test
	void reactiveSectionsOfAKeyNeverOverlapAcrossThreeProcessesAndUnlockedOnesDo() {
		int processes = 3;
		int calls = 90;
		List<Map<String, Long>> summaries = run(processes, calls, 2);

		assertThat(summaries).allSatisfy((summary) -> {
			assertThat(summary.get("sections")).isEqualTo(calls);
			assertThat(summary.get("overlaps")).as("overlaps").isZero();
			assertThat(summary.get("regressions")).as("fencing token regressions").isZero();
			assertThat(summary.get("errors")).as("errors").isZero();
		});
		String probePrefix = this.redis.prefix() + "probe:";
		for (String key : List.of("key-0", "key-1")) {
			// every section of every process is in the tally: no read-modify-write was lost
			assertThat(SectionProbe.tally(this.redis.template(), probePrefix, key).sections()).as(key)
				.isEqualTo(processes * calls / 2);
		}
		assertThat(RedisConnections.keys(this.redis.template(), LockingWorker.lockPrefix(this.redis.prefix()))).isEmpty();
		assertThat(summaries.stream().mapToLong((summary) -> summary.get("controlOverlaps")).sum()).as("control overlaps")
			.isPositive();
	}

	private List<Map<String, Long>> run(int processes, int calls, int keys) {
		TestRedis.Endpoint endpoint = this.redis.endpoint();
		long start = System.nanoTime();
		for (int i = 0; i < processes; i++) {
			this.processes.add(JavaProcess.start("reactive-" + i, ReactiveWorker.class, LockingWorker.JVM_OPTIONS,
					endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), Integer.toString(processes),
					Integer.toString(calls), Integer.toString(keys)));
		}
		List<Map<String, Long>> summaries = new ArrayList<>();
		for (JavaProcess process : this.processes) {
			int exitCode = process.waitFor(RUN_LIMIT);
			assertThat(exitCode).as("exit code of %s. Output:%n%s", process, process.output()).isZero();
			summaries.add(LockingWorker.summary(process));
		}
		System.out.printf("%d reactive processes x %d calls took %d ms: %s%n", processes, calls,
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), summaries);
		return summaries;
	}

}
