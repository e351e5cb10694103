package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job guard under every fault at once: 3 instances in JVMs of their own, scheduler clocks 0,
 * +500 and -500 ms apart, a 200 ms job every second, each instance reaching Redis through its own
 * proxy that cuts all its connections every 0.3 to 1.5 s; Redis (with {@code appendfsync always})
 * crashed and restarted once; one instance stopped with SIGSTOP for 5 s and resumed. What must
 * hold: no slot runs twice. The slots that never ran are counted by what was happening then (the
 * Redis restart, the pause, or neither) and reported. 20 s in CI; {@code -Psoak} runs it 10 minutes
 * ({@code -Dlockstep.faults.seconds}).
 */
@Timeout(value = 1500, unit = TimeUnit.SECONDS)
class JobGuardSoakProcessTests {

	private static final int SECONDS = Integer.getInteger("lockstep.faults.seconds", 20);

	private static final List<String> JVM = List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private static final Map<String, Long> SKEWS = Map.of("soak-0", 0L, "soak-1", 500L, "soak-2", -500L);

	/** The default skew tolerance: takeovers of a slot come this long after it. */
	private static final long TOLERANCE = 10_000;

	private final List<AutoCloseable> parts = new ArrayList<>();

	private final Map<String, JavaProcess> processes = new TreeMap<>();

	private final List<AutoCloseable> cutters = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		stopCutting();
		this.processes.values().stream().filter(JavaProcess::isAlive).forEach(JavaProcess::resume);
		this.processes.values().forEach(JavaProcess::kill);
		for (AutoCloseable part : this.parts) {
			part.close();
		}
	}

	@Test
	void noSlotRunsTwiceThroughCutsARestartAndAPause() throws Exception {
		RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
		this.parts.add(redis);
		String prefix = "j" + UUID.randomUUID().toString().substring(0, 8) + ":";
		List<FaultProxy> proxies = new ArrayList<>();
		for (Map.Entry<String, Long> instance : new TreeMap<>(SKEWS).entrySet()) {
			FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
			proxies.add(proxy);
			this.parts.add(proxy);
			this.processes.put(instance.getKey(), JavaProcess.start(instance.getKey(), EverySecondJobProcess.class, JVM,
					proxy.host(), Integer.toString(proxy.port()), prefix, instance.getKey(),
					Long.toString(instance.getValue())));
		}
		this.processes.forEach((instance, process) -> process.awaitLine("STARTED " + instance, Duration.ofSeconds(120)));
		Random random = new Random(35);
		for (FaultProxy proxy : proxies) {
			this.cutters.add(proxy.cutEvery(Duration.ofMillis(300), Duration.ofMillis(1500), random.nextLong()));
		}
		long from = (System.currentTimeMillis() / 1000 + 2) * 1000;
		long until = from + SECONDS * 1000L;
		sleepUntil(from + (until - from) / 3);
		long restartFrom = System.currentTimeMillis();
		redis.restart();
		long restartUntil = System.currentTimeMillis();
		sleepUntil(from + (until - from) * 2 / 3);
		JavaProcess paused = this.processes.get("soak-1");
		long pauseFrom = System.currentTimeMillis();
		paused.pause();
		Thread.sleep(5_000);
		paused.resume();
		long pauseUntil = System.currentTimeMillis();
		sleepUntil(until);
		stopCutting();
		// the takeovers of the last slots come a tolerance later
		Thread.sleep(TOLERANCE + 4_000);

		Map<Long, List<String>> runs = new TreeMap<>();
		this.processes.values().forEach((process) -> process.lines()
			.stream()
			.filter((line) -> line.startsWith("START "))
			.map((line) -> line.split(" "))
			.forEach((parts) -> runs.computeIfAbsent(Long.parseLong(parts[2]), (slot) -> new ArrayList<>()).add(parts[1])));
		List<String> twice = new ArrayList<>();
		runs.forEach((slot, runners) -> {
			if (runners.size() > 1) {
				twice.add(slot + " ran " + runners.size() + " times: " + runners);
			}
		});
		int duringRestart = 0;
		int duringPause = 0;
		List<Long> otherwise = new ArrayList<>();
		for (long slot = from; slot < until; slot += 1000) {
			if (runs.containsKey(slot)) {
				continue;
			}
			if (slot >= restartFrom - 1000 && slot <= restartUntil + 3000) {
				duringRestart++;
			}
			else if (slot >= pauseFrom - 1000 && slot <= pauseUntil + 1000) {
				duringPause++;
			}
			else {
				otherwise.add(slot);
			}
		}
		int cuts = proxies.stream().mapToInt(FaultProxy::cuts).sum();
		System.out.printf("Job soak: %d s, %d slots, %d cuts, Redis restarted once (%d ms), soak-1 paused %d ms; "
				+ "%d slots ran twice; slots skipped: %d around the restart, %d around the pause, %d otherwise %s%n",
				SECONDS, (until - from) / 1000, cuts, restartUntil - restartFrom, pauseUntil - pauseFrom, twice.size(),
				duringRestart, duringPause, otherwise.size(), otherwise);
		assertThat(cuts).as("connection cuts").isGreaterThanOrEqualTo(SECONDS);
		assertThat(twice).as("slots that ran twice").isEmpty();
		assertThat(runs.keySet().stream().filter((slot) -> slot >= from && slot < until).count())
			.as("slots run at all").isPositive();
	}



	private void stopCutting() throws Exception {
		for (AutoCloseable cutter : this.cutters) {
			cutter.close();
		}
		this.cutters.clear();
	}

	private static void sleepUntil(long epochMillis) throws InterruptedException {
		long left = epochMillis - System.currentTimeMillis();
		if (left > 0) {
			Thread.sleep(left);
		}
	}

}
