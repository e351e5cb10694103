package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connections cut at random points of a contended run across real processes: three worker JVMs,
 * each with its own lock service whose connection runs through a {@link FaultProxy} in this JVM,
 * while a {@link SectionProbe} in each watches every critical section over a connection of its
 * own that is never cut. The proxies cut one worker's connections, or all of them, every 0.3 to
 * 1.5 seconds. What must hold: no two sections of a key overlap and fencing tokens only grow
 * (the probe's tally also shows that no section went unrecorded); every lock call returns within
 * its wait plus a few command timeouts; nothing is left in Redis once the run is over.
 *
 * <p>This is also the soak run: {@code ./mvnw -pl lock-core -am verify -Psoak} runs it for ten
 * minutes with 32 threads per worker ({@code -Dlockstep.faults.seconds},
 * {@code -Dlockstep.faults.threads}) and prints a {@code Cut run:} line with its figures.
 */
class ConnectionCutProcessTests {

	private static final int WORKERS = 3;

	private static final int SECONDS = Integer.getInteger("lockstep.faults.seconds", 20);

	private static final int THREADS = Integer.getInteger("lockstep.faults.threads", 6);

	private static final int KEYS = 3;

	/** A lock call's wait, a few command timeouts (acquire, cancel, release), and slack for a loaded machine. */
	private static final Duration CALL_BOUND = LockingWorker.FAULT_WAIT
		.plus(LockingWorker.FAULT_COMMAND_TIMEOUT.multipliedBy(4))
		.plusSeconds(4);

	private final List<JavaProcess> processes = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	@AfterEach
	void cleanUp() {
		this.processes.forEach(JavaProcess::kill);
		this.proxies.forEach(FaultProxy::close);
	}

	@Test
	void connectionsCutAtRandomAcrossThreeProcessesNeverGiveTwoHoldersAndLeaveNothingBehind() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		for (int i = 0; i < WORKERS; i++) {
			FaultProxy proxy = FaultProxy.start(endpoint.host(), endpoint.port());
			this.proxies.add(proxy);
			this.processes.add(JavaProcess.start("cut-worker-" + i, LockingWorker.class, LockingWorker.JVM_OPTIONS,
					"contend-through", endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(),
					Integer.toString(WORKERS), Integer.toString(THREADS), Integer.toString(SECONDS), Integer.toString(KEYS),
					proxy.host(), Integer.toString(proxy.port())));
		}
		awaitAllWorkersStarted();
		Random random = new Random(23);
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
		while (System.nanoTime() < until) {
			Thread.sleep(300 + random.nextInt(1200));
			if (random.nextInt(3) == 0) {
				this.proxies.forEach(FaultProxy::cutAll);
			}
			else {
				this.proxies.get(random.nextInt(WORKERS)).cutAll();
			}
		}
		List<Map<String, Long>> summaries = new ArrayList<>();
		for (JavaProcess process : this.processes) {
			assertThat(process.waitFor(Duration.ofSeconds(120))).as("exit code of %s. Output:%n%s", process, process.output())
				.isZero();
			summaries.add(LockingWorker.summary(process));
		}
		int cuts = this.proxies.stream().mapToInt(FaultProxy::cuts).sum();
		long sections = total(summaries, "sections");
		System.out.printf("Cut run: %d s, %d processes x %d threads, %d cuts: %d sections, %d overlaps, %d token regressions, "
				+ "%d locks lost, %d not acquired within the wait, %d unavailable, longest call %d ms%n", SECONDS, WORKERS, THREADS,
				cuts, sections, total(summaries, "overlaps"), total(summaries, "regressions"), total(summaries, "lost"),
				total(summaries, "notAcquired"), total(summaries, "unavailable"),
				summaries.stream().mapToLong((summary) -> summary.get("longest")).max().orElseThrow());

		assertThat(total(summaries, "overlaps")).as("overlapping sections").isZero();
		assertThat(total(summaries, "regressions")).as("fencing token regressions").isZero();
		assertThat(total(summaries, "errors")).as("errors other than not acquired or unavailable").isZero();
		assertThat(cuts).as("cuts").isGreaterThanOrEqualTo(SECONDS / 2);
		assertThat(sections).as("sections run").isGreaterThan(100);
		assertThat(summaries).allSatisfy((summary) -> assertThat(Duration.ofMillis(summary.get("longest")))
			.as("longest lock call").isLessThanOrEqualTo(CALL_BOUND));
		String probePrefix = this.redis.prefix() + "probe:";
		long tallied = 0;
		for (int key = 0; key < KEYS; key++) {
			tallied += SectionProbe.tally(this.redis.template(), probePrefix, "key-" + key).sections();
			assertThat(SectionProbe.inside(this.redis.template(), probePrefix, "key-" + key)).isZero();
		}
		assertThat(tallied).as("sections the probe's tally recorded (fewer: two sections interleaved)").isEqualTo(sections);
		// locks, queues and grants all gone, within a lease and the queue's time-to-live
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
			.untilAsserted(() -> assertThat(RedisConnections.keys(this.redis.template(), LockingWorker.lockPrefix(this.redis.prefix())))
				.as("keys left in Redis").isEmpty());
	}

	/** The cuts start once every worker has connected through its proxy and is contending. */
	private void awaitAllWorkersStarted() {
		await().atMost(Duration.ofSeconds(90))
			.until(() -> this.proxies.stream().allMatch((proxy) -> proxy.acceptedConnections() > 0)
					&& String.valueOf(WORKERS).equals(this.redis.template().opsForValue().get(this.redis.prefix() + "probe:ready")));
	}

	private static long total(List<Map<String, Long>> summaries, String name) {
		return summaries.stream().mapToLong((summary) -> summary.get(name)).sum();
	}

}
