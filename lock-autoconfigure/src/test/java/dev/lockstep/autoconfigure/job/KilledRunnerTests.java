package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** A guarded job's runner dies (SIGKILL): the next firing runs on another instance. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KilledRunnerTests {

	private static final List<String> JVM = List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	@Test
	void theNextFiringRunsElsewhereWithinLockAtMostForOfTheKill() {
		String prefix = "k" + UUID.randomUUID().toString().substring(0, 8) + ":";
		TestRedis.Endpoint redis = TestRedis.standalone();
		String[] common = { redis.host(), Integer.toString(redis.port()), prefix };
		try (JavaProcess first = start("one", common); JavaProcess second = start("two", common)) {
			String run = awaitRun(first, second, Duration.ofSeconds(60));
			JavaProcess runner = run.contains(" one ") ? first : second;
			JavaProcess survivor = (runner == first) ? second : first;
			int survivorRuns = runs(survivor);
			// the runner renews its 3s guard while its minute-long run lasts: nobody else runs meanwhile
			sleep(5_000);
			assertThat(runs(survivor)).as(survivor.output()).isEqualTo(survivorRuns);

			long killedAt = System.currentTimeMillis();
			runner.kill();
			String next = survivor.awaitLine((line) -> line.startsWith("RUN ") && Long.parseLong(line.split(" ")[2]) > killedAt,
					Duration.ofSeconds(30));
			long after = Long.parseLong(next.split(" ")[2]) - killedAt;
			// guard lease 3s after the last renewal, plus one 2s firing period, plus slack for a busy machine
			assertThat(after).as("ms from kill to the survivor's run").isLessThan(3_000 + 2_000 + 3_000);
		}
	}

	private static JavaProcess start(String instance, String[] common) {
		return JavaProcess.start("job-" + instance, GuardedJobProcess.class, JVM, common[0], common[1], common[2], instance);
	}

	private static String awaitRun(JavaProcess first, JavaProcess second, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			for (JavaProcess process : List.of(first, second)) {
				for (String line : process.lines()) {
					if (line.startsWith("RUN ")) {
						return line;
					}
				}
			}
			sleep(100);
		}
		throw new IllegalStateException("No run within " + timeout + ":\n" + first.output() + "\n" + second.output());
	}

	private static int runs(JavaProcess process) {
		return (int) process.lines().stream().filter((line) -> line.startsWith("RUN ")).count();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
