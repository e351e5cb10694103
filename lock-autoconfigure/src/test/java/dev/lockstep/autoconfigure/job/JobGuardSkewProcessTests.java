package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances in JVMs of their own, scheduler clocks 0, +500 and -500 ms apart, a cron job every
 * second whose runs last 200 ms, the job guard's defaults (skew-tolerance 10s): for 30 s, every slot
 * runs exactly once, also when an instance chosen for a slot is stopped (SIGSTOP) for 5 s before it
 * fires it and resumed while another instance's run holds the guard. The slots before the pause and
 * those after its takeover are the case of skewed clocks alone (one fleet serves both, as each
 * takes a minute to run).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class JobGuardSkewProcessTests {

	private static final List<String> JVM = List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	/** Instance id -> scheduler clock skew in ms. */
	private static final Map<String, Long> SKEWS = Map.of("jobcut-0", 0L, "jobcut-1", 500L, "jobcut-2", -500L);

	private static final long WINDOW = 30_000;

	/** The default skew tolerance: a takeover of a slot starts this long after its firing. */
	private static final long TOLERANCE = 10_000;

	@Test
	void everySlotRunsExactlyOnceWhenAnInstanceChosenForASlotIsStoppedFiveSecondsBeforeFiringIt() throws Exception {
		try (Fleet fleet = new Fleet()) {
			long from = fleet.windowStart();
			sleepUntil(from + 6_000);
			String stopped = fleet.stopTheChosenInstanceOfAnUpcomingSlot(Duration.ofSeconds(5));
			sleepUntil(from + WINDOW + TOLERANCE + 4_000);
			fleet.assertEverySlotRanOnce(from, from + WINDOW, stopped);
		}
	}

	/** The three instances, on the test's Redis and a key prefix of their own. */
	private static final class Fleet implements AutoCloseable {

		private final String prefix = "s" + UUID.randomUUID().toString().substring(0, 8) + ":";

		private final TestRedis.Endpoint redis = TestRedis.standalone();

		private final Map<String, JavaProcess> processes = new TreeMap<>();

		private final LettuceConnectionFactory connections;

		private final StringRedisTemplate template;

		/** The slot whose chosen instance was stopped before firing it, if one was. */
		private long stoppedSlot;

		Fleet() {
			this.connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
			this.connections.afterPropertiesSet();
			this.template = new StringRedisTemplate(this.connections);
			this.template.afterPropertiesSet();
			SKEWS.forEach((instance, skew) -> this.processes.put(instance, JavaProcess.start(instance,
					EverySecondJobProcess.class, JVM, this.redis.host(), Integer.toString(this.redis.port()), this.prefix,
					instance, Long.toString(skew))));
		}

		/** Waits until the three are up; the first slot of the window checked, a few seconds later. */
		long windowStart() {
			this.processes.forEach((instance, process) -> process.awaitLine("STARTED " + instance, Duration.ofSeconds(120)));
			return (System.currentTimeMillis() / 1000 + 4) * 1000;
		}

		/**
		 * Finds a slot elected (by another instance's earlier firing) for an instance that has not fired
		 * it yet and is not running, stops that instance with SIGSTOP, and resumes it after
		 * {@code pause}, as soon as another instance starts a run (so that its late firing of the slot
		 * finds the guard held). A description of what was done.
		 */
		String stopTheChosenInstanceOfAnUpcomingSlot(Duration pause) throws Exception {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				Set<String> keys = this.template.keys(this.prefix + "*:slots");
				long now = System.currentTimeMillis();
				for (String key : (keys != null) ? keys : Set.<String>of()) {
					for (String record : this.template.opsForZSet().rangeByScore(key, now, now + 5_000)) {
						String[] parts = record.split(":", 3);
						if (!parts[1].equals("e") || !SKEWS.containsKey(parts[2])) {
							continue;
						}
						long slot = Long.parseLong(parts[0]);
						String chosen = parts[2];
						JavaProcess process = this.processes.get(chosen);
						long firesAt = slot - SKEWS.get(chosen);
						if (firesAt - System.currentTimeMillis() > 150 && idle(process)) {
							process.pause();
							this.stoppedSlot = slot;
							long stoppedAt = System.currentTimeMillis();
							try {
								Thread.sleep(pause.toMillis());
								awaitAnotherRun(chosen, Duration.ofSeconds(5));
							}
							finally {
								process.resume();
							}
							return String.format("%s, chosen for slot %d, stopped %d ms before firing it, for %d ms", chosen,
									slot, firesAt - stoppedAt, System.currentTimeMillis() - stoppedAt);
						}
					}
				}
				Thread.sleep(10);
			}
			throw new IllegalStateException("No slot elected ahead for an instance that had not fired it within 10s:\n"
					+ outputs());
		}

		private static boolean idle(JavaProcess process) {
			List<String> lines = process.lines();
			long started = lines.stream().filter((line) -> line.startsWith("START ")).count();
			long ended = lines.stream().filter((line) -> line.startsWith("END ")).count();
			return started == ended;
		}

		/** Waits until an instance other than {@code stopped} starts a run. */
		private void awaitAnotherRun(String stopped, Duration timeout) throws InterruptedException {
			Map<String, Integer> before = new TreeMap<>();
			this.processes.forEach((instance, process) -> before.put(instance, process.lines().size()));
			long deadline = System.nanoTime() + timeout.toNanos();
			while (System.nanoTime() < deadline) {
				for (Map.Entry<String, JavaProcess> entry : this.processes.entrySet()) {
					List<String> lines = entry.getValue().lines();
					if (!entry.getKey().equals(stopped) && lines.subList(before.get(entry.getKey()), lines.size())
						.stream()
						.anyMatch((line) -> line.startsWith("START "))) {
						return;
					}
				}
				Thread.sleep(2);
			}
		}


		/** Every slot in [from, until) ran exactly once, and no slot at all ran twice. */
		void assertEverySlotRanOnce(long from, long until, String happened) {
			Map<Long, List<String>> runs = new TreeMap<>();
			this.processes.values().forEach((process) -> process.lines()
				.stream()
				.filter((line) -> line.startsWith("START "))
				.map((line) -> line.split(" "))
				.forEach((parts) -> runs.computeIfAbsent(Long.parseLong(parts[2]), (slot) -> new ArrayList<>())
					.add(parts[1] + " (attempt " + parts[3] + ")")));
			List<String> wrong = new ArrayList<>();
			runs.forEach((slot, runners) -> {
				if (runners.size() > 1) {
					wrong.add(slot + " ran " + runners.size() + " times: " + runners);
				}
			});
			for (long slot = from; slot < until; slot += 1000) {
				if (!runs.containsKey(slot)) {
					wrong.add(slot + " never ran");
				}
			}
			System.out.printf("%d slots from %d to %d checked%s%n", (until - from) / 1000, from, until,
					happened.isEmpty() ? "" : "; " + happened + "; that slot was run by " + runs.get(this.stoppedSlot));
			assertThat(wrong).as("slots from %d to %d (%s); runs %s%n%s", from, until, happened, runs, outputs()).isEmpty();
		}

		private String outputs() {
			StringBuilder all = new StringBuilder();
			this.processes.forEach((instance, process) -> all.append("--- ").append(instance).append('\n')
				.append(process.output()).append('\n'));
			return all.toString();
		}

		@Override
		public void close() {
			this.processes.values().forEach((process) -> process.stop(Duration.ofSeconds(10)));
			this.connections.destroy();
		}

	}

	private static void sleepUntil(long epochMillis) throws InterruptedException {
		long left = epochMillis - System.currentTimeMillis();
		if (left > 0) {
			Thread.sleep(left);
		}
	}

}
