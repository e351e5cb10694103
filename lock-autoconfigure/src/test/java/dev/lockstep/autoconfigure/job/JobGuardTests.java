package dev.lockstep.autoconfigure.job;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.SchedulingConfigurer;

import dev.lockstep.JobElection;
import dev.lockstep.JobFiring;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobMember;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockListener;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The job guard with real schedulers, real Redis and several application instances.
 * <p>
 * The tests mostly wait for cron slots, so they run concurrently (each test method is
 * {@code CONCURRENT}; the class itself is not, so it never overlaps other classes). Each test's
 * instances share a key prefix of their own ({@link JobApps}), and what their jobs did is kept
 * by that prefix, so a test sees only its own runs. Spring Boot's logging system is switched off
 * while the class runs: it re-initialises Logback when an application starts after another has
 * closed, and log lines of one test's instances would be lost while another test's instance
 * starts. Logback keeps logback-test.xml's configuration throughout.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JobGuardTests {

	/**
	 * What the jobs of each test's instances did, by their key prefix: instance, the firing's slot
	 * by its own clock.
	 */
	private static final Map<String, Queue<String[]>> RUNS = new ConcurrentHashMap<>();

	/** What {@link JobFiring#current()} said inside each run of a job that records it, by key prefix. */
	private static final Map<String, Queue<JobFiring>> FIRINGS = new ConcurrentHashMap<>();

	/** Everything the class's instances log (all tests together; each test looks for lines only it causes). */
	private static ConsoleCapture output;

	private static String loggingSystem;

	private JobApps apps;

	@BeforeAll
	static void captureOutputWithoutBootsLoggingSystem() {
		loggingSystem = System.getProperty(LoggingSystem.SYSTEM_PROPERTY);
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
		output = ConsoleCapture.install();
	}

	@AfterAll
	static void restoreOutputAndLoggingSystem() {
		output.close();
		if (loggingSystem != null) {
			System.setProperty(LoggingSystem.SYSTEM_PROPERTY, loggingSystem);
		}
		else {
			System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
		}
		RUNS.clear();
		FIRINGS.clear();
	}

	@BeforeEach
	void prepare() {
		this.apps = new JobApps();
	}

	@AfterEach
	void close() {
		this.apps.close();
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void eachCronSlotRunsOnceOnTimeAcrossSkewedClocksAndRunsRotateOverTheInstances() throws Exception {
		// clocks 0.8s apart on a 2s cron: one instance fires slot S+1 before another fires S
		ConfigurableApplicationContext early = this.apps.start("early", Duration.ofMillis(800), EveryTwoSeconds.class);
		this.apps.start("exact", Duration.ZERO, EveryTwoSeconds.class);
		this.apps.start("late", Duration.ofMillis(-800), EveryTwoSeconds.class);
		List<Instant> expected = new ArrayList<>();
		for (long slot = ceil(Instant.now().plusSeconds(3).toEpochMilli(), 2000); expected.size() < 15; slot += 2000) {
			expected.add(Instant.ofEpochMilli(slot));
		}
		JobGuardRegistry registry = early.getBean(JobGuardRegistry.class);
		// bounded by the slots themselves (30s) plus the takeover delay and slack; the verdict is below
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> registry
			.history("EveryTwoSeconds.tick").stream().map(JobRun::scheduledTime).toList().containsAll(expected));
		this.apps.close();
		List<JobRun> runs = this.apps.start("observer", Duration.ZERO, NoJobs.class).getBean(JobGuardRegistry.class)
			.history("EveryTwoSeconds.tick").stream().filter((run) -> expected.contains(run.scheduledTime())).toList();

		Map<Instant, List<String>> bySlot = new TreeMap<>();
		for (JobRun run : runs) {
			bySlot.computeIfAbsent(run.scheduledTime(), (slot) -> new ArrayList<>()).add(run.instance());
		}
		assertThat(bySlot.values()).as("runners per slot: %s", bySlot).allSatisfy((runners) -> assertThat(runners).hasSize(1));
		// the job body itself ran once per slot (each run records the slot by its own clock)
		Map<String, Long> bodyRuns = runs().stream().collect(Collectors.groupingBy((run) -> run[1], Collectors.counting()));
		for (Instant slot : expected) {
			assertThat(bodyRuns.get(Long.toString(slot.toEpochMilli())))
				.as("body runs of slot %s (body runs by slot %s; runs %s)", slot, bodyRuns, runs)
				.isEqualTo(1L);
		}
		// on time: on the chosen instance's own firing, never through the takeover (10s later)
		assertThat(runs).allSatisfy((run) -> assertThat(Duration.between(run.scheduledTime(), run.start()))
			.as("%s started after its slot", run).isLessThan(Duration.ofSeconds(5)));

		Map<String, Long> perInstance = runs.stream().collect(Collectors.groupingBy(JobRun::instance, Collectors.counting()));
		assertThat(perInstance).as("runs per instance").containsOnlyKeys("early", "exact", "late");
		long most = perInstance.values().stream().mapToLong(Long::longValue).max().orElseThrow();
		long least = perInstance.values().stream().mapToLong(Long::longValue).min().orElseThrow();
		assertThat(most - least).as("runs per instance %s", perInstance).isLessThanOrEqualTo(1);
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aJobLongerThanItsPeriodGivesUpTheSlotsItsRunsOverlapForGoodAndRunsNoneOfThemLate() throws Exception {
		LongerThanItsPeriod.SKIPS.clear();
		// 1.5s runs on a 1s cron: each run still holds the guard a whole period after its slot
		this.apps.start("a", Duration.ZERO, LongerThanItsPeriod.class, "lockstep.job-guard.skew-tolerance=2s");
		this.apps.start("b", Duration.ZERO, LongerThanItsPeriod.class, "lockstep.job-guard.skew-tolerance=2s");
		await().atMost(Duration.ofSeconds(60)).until(() -> firings().size() >= 6);
		// past the takeover delay (2s) of the slots given up: no takeover runs one late
		Thread.sleep(4_000);
		this.apps.close();
		List<JobRun> runs = new ArrayList<>(this.apps.start("observer", Duration.ZERO, NoJobs.class)
			.getBean(JobGuardRegistry.class)
			.history("LongerThanItsPeriod.work"));
		runs.sort(java.util.Comparator.comparing(JobRun::scheduledTime));
		assertThat(runs).as("runs").hasSizeGreaterThanOrEqualTo(6);
		assertThat(runs.stream().map(JobRun::scheduledTime).distinct()).as("no slot twice").hasSameSizeAs(runs);
		// a slot runs on time, or (when a starved run overran a whole period, as on a loaded machine) late
		// only because the guard was still held at its slot, and then at once once the guard came free
		for (JobRun run : runs) {
			if (Duration.between(run.scheduledTime(), run.start()).compareTo(Duration.ofSeconds(1)) < 0) {
				continue;
			}
			java.time.Instant freed = runs.stream().filter((other) -> other != run && other.end().isBefore(run.start()))
				.map(JobRun::end).max(java.util.Comparator.naturalOrder()).orElseThrow();
			assertThat(freed).as("%s ran late: the guard was held past its slot (runs %s)", run, runs)
				.isAfter(run.scheduledTime());
			// it tries again every 100-250 ms (1 s after a takeover's miss): 2 s is the slack of a loaded machine
			assertThat(Duration.between(freed, run.start())).as("%s ran once the guard came free", run)
				.isLessThan(Duration.ofSeconds(2));
		}
		long onTime = runs.stream()
			.filter((run) -> Duration.between(run.scheduledTime(), run.start()).compareTo(Duration.ofSeconds(1)) < 0)
			.count();
		assertThat(onTime).as("runs on time (%s)", runs).isGreaterThanOrEqualTo(3);
		assertThat(LongerThanItsPeriod.SKIPS).as("skip reasons")
			.anySatisfy((reason) -> assertThat(reason).startsWith("given up: the guard was still held by ")
				.endsWith("a whole period after that slot (a job longer than its period)"));
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void fixedRateRunsHoldTheGuardAtLeastLockAtLeastFor() throws Exception {
		ConfigurableApplicationContext first = this.apps.start("a", Duration.ZERO, FixedRate.class);
		this.apps.start("b", Duration.ZERO, FixedRate.class);
		// both instances fire every 500ms: unguarded, that is 4 runs a second
		await().atMost(Duration.ofSeconds(20)).until(() -> runs().size() >= 3);
		double skipped = first.getBean(MeterRegistry.class).get("lockstep.job.skipped").tag("job", "FixedRate.tick")
			.counter().count();
		JobSkip lastSkip = first.getBean(JobGuardRegistry.class).lastSkip("FixedRate.tick").orElseThrow();
		this.apps.close();
		List<JobRun> history = this.apps.start("observer", Duration.ZERO, NoJobs.class).getBean(JobGuardRegistry.class)
			.history("FixedRate.tick");
		assertThat(history).as("every run of the body is recorded").hasSize(runs().size());
		for (int i = 0; i + 1 < history.size(); i++) {
			Duration gap = Duration.between(history.get(i + 1).start(), history.get(i).start());
			assertThat(gap).as("gap between run starts").isGreaterThanOrEqualTo(Duration.ofMillis(2900));
		}
		assertThat(lastSkip.reason()).startsWith("held by ");
		// a skipped firing is normal: no error, a counter
		assertThat(skipped).isPositive();
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void startupListsTheGuardedJobsAndRejectsTwoJobsWithOneName() {
		this.apps.start("lister", Duration.ZERO, Failing.class);
		assertThat(output.text()).contains("Lockstep guards 1 job(s) as instance lister: 'nightly-export' "
				+ "(JobGuardTests.Failing.export(), lockAtMostFor 2m, lockAtLeastFor 0s)");
		assertThatThrownBy(() -> this.apps.start("twins", Duration.ZERO, Twins.class))
			.hasStackTraceContaining("Two jobs use the guard name 'nightly-export'")
			.hasStackTraceContaining("JobGuardTests.Failing.export()")
			.hasStackTraceContaining("JobGuardTests.SameName.other()");
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void startupWarnsAboutAFixedRateGuardWhoseLockAtLeastForCannotKeepItToOneRunPerPeriod() {
		this.apps.start("warned", Duration.ZERO, FixedRateWithoutLockAtLeastFor.class);
		this.apps.start("fine", Duration.ZERO, FixedRate.class);
		assertThat(output.text()).contains("@JobGuard on JobGuardTests.FixedRateWithoutLockAtLeastFor.tick() is fixed-rate 1m "
				+ "with lockAtLeastFor 0s").contains("(e.g. 54s)");
		assertThat(output.text()).doesNotContain("JobGuardTests.FixedRate.tick() is fixed-rate");
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aFailedRunIsRecordedAndReleasesItsGuard() {
		ConfigurableApplicationContext context = this.apps.start("solo", Duration.ZERO, Failing.class);
		JobGuardRegistry registry = context.getBean(JobGuardRegistry.class);
		await().atMost(Duration.ofSeconds(15)).until(() -> registry.lastRun("nightly-export").isPresent());
		JobRun run = registry.lastRun("nightly-export").orElseThrow();
		assertThat(run.succeeded()).isFalse();
		assertThat(run.exception()).isEqualTo(IllegalStateException.class.getName());
		assertThat(run.instance()).isEqualTo("solo");
		assertThat(run.scheduledTime()).isNotNull();
		StringRedisTemplate redis = redis(context);
		assertThat(redis.hasKey(this.apps.prefix() + "{job:nightly-export}:history")).as("the job's records").isTrue();
		assertThat(redis.hasKey(this.apps.prefix() + "{job:nightly-export}:guard")).as("a guard left behind").isFalse();
		assertThat(registry.jobs()).singleElement().satisfies((job) -> {
			assertThat(job.name()).isEqualTo("nightly-export");
			assertThat(job.lockAtMostFor()).isEqualTo(Duration.ofMinutes(2));
		});
		// the run is metered on the instance that ran it, with its outcome
		await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(MeterRegistry.class)
			.find("lockstep.job.runs").tag("job", "nightly-export").tag("outcome", "failure").timer() != null);
	}

	/**
	 * A {@code LockListener} that throws an Error when it hears of a run (the listener isolation
	 * only catches exceptions): the run's guard is given up all the same, so the next firings run.
	 * Given up after the listener, the guard would stay held and renewed until the application stops.
	 */
	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aListenerThatThrowsAnErrorAfterARunDoesNotKeepTheGuard() {
		ListenerThrowsError.THROWN.set(0);
		this.apps.start("erring", Duration.ZERO, ListenerThrowsError.class);
		// fired every 300 ms: a guard kept after the first run would hold the others off for a minute
		await().atMost(Duration.ofSeconds(20)).until(() -> runs().size() >= 3);
		assertThat(ListenerThrowsError.THROWN.get()).as("errors thrown by the listener").isGreaterThanOrEqualTo(2);
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void jobsRegisteredThroughASchedulingConfigurerAreGuardedPerSlot() throws Exception {
		this.apps.start("c1", Duration.ZERO, ConfigurerJobs.class);
		this.apps.start("c2", Duration.ZERO, ConfigurerJobs.class);
		await().atMost(Duration.ofSeconds(20)).until(() -> runs().stream().map((run) -> run[1]).distinct().count() >= 3);
		this.apps.close();
		Map<String, Long> perSlot = runs().stream().collect(Collectors.groupingBy((run) -> run[1], Collectors.counting()));
		assertThat(perSlot.values()).allSatisfy((count) -> assertThat(count).isEqualTo(1));
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void unguardedJobsStillRunOnEveryInstanceUnlessAllScheduledJobsAreGuarded() throws Exception {
		this.apps.start("u1", Duration.ZERO, Unguarded.class);
		this.apps.start("u2", Duration.ZERO, Unguarded.class);
		await().atMost(Duration.ofSeconds(15)).until(() -> runs().stream().map((run) -> run[0]).distinct().count() == 2);
		assertThat(runs().stream().map((run) -> run[0]).distinct()).containsExactlyInAnyOrder("u1", "u2");
		this.apps.close();
		// instances under a new key prefix: new records, and runs of their own
		this.apps = new JobApps();
		this.apps.start("g1", Duration.ZERO, Unguarded.class, "lockstep.job-guard.guard-all-scheduled=true");
		this.apps.start("g2", Duration.ZERO, Unguarded.class, "lockstep.job-guard.guard-all-scheduled=true");
		await().atMost(Duration.ofSeconds(20)).until(() -> runs().stream().map((run) -> run[1]).distinct().count() >= 3);
		this.apps.close();
		Map<String, Long> perSlot = runs().stream().collect(Collectors.groupingBy((run) -> run[1], Collectors.counting()));
		assertThat(perSlot).isNotEmpty();
		assertThat(perSlot.values()).allSatisfy((count) -> assertThat(count).isEqualTo(1));
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void theNextSlotIsKnownAheadWithTheInstanceTheRotationWillChoose() throws Exception {
		JobGuardRegistry registry = this.apps.start("a", Duration.ZERO, EveryTwoSeconds.class).getBean(JobGuardRegistry.class);
		this.apps.start("b", Duration.ZERO, EveryTwoSeconds.class);
		// both have fired the job (so both may be chosen) once two slots ran after they started
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.history("EveryTwoSeconds.tick").size() >= 3
				&& registry.members("EveryTwoSeconds.tick").stream().filter((member) -> member.lastFiredSlot() != null).count() == 2);
		List<String> expectedRunners = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			// read between two slots, away from the firings, so that the previous slot is elected already
			long now = System.currentTimeMillis();
			Thread.sleep(Math.floorMod(1000 - Math.floorMod(now, 2000), 2000));
			JobNextSlot next = registry.nextSlot("EveryTwoSeconds.tick").orElseThrow();
			assertThat(next.scheduledTime()).isEqualTo(Instant.ofEpochMilli(ceil(System.currentTimeMillis(), 2000)));
			assertThat(next.elected()).as("elected before its first firing: %s", next).isFalse();
			assertThat(next.expectedInstance()).isIn("a", "b");
			expectedRunners.add(next.expectedInstance());
			await().atMost(Duration.ofSeconds(10)).until(() -> registry.elections("EveryTwoSeconds.tick").stream()
				.anyMatch((election) -> election.scheduledTime().equals(next.scheduledTime())));
			JobElection election = registry.elections("EveryTwoSeconds.tick").stream()
				.filter((candidate) -> candidate.scheduledTime().equals(next.scheduledTime())).findFirst().orElseThrow();
			assertThat(election.chosenInstance()).as("chosen for %s", next.scheduledTime()).isEqualTo(next.expectedInstance());
		}
		// the rotation: two instances take turns
		assertThat(expectedRunners.get(0)).isNotEqualTo(expectedRunners.get(1));
		assertThat(expectedRunners.get(2)).isEqualTo(expectedRunners.get(0));
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aSlotLeftToAnInstanceThatNeverStartsItRunsElsewhereAndTheNextSlotsRunOnTime() throws Exception {
		ConfigurableApplicationContext context = this.apps.start("survivor", Duration.ZERO, EveryTwoSeconds.class,
				"lockstep.job-guard.skew-tolerance=1s");
		// an instance that announced itself and fired the job, then died: it has never been elected,
		// so it is chosen for the next slot, which the survivor takes over after the skew tolerance
		StringRedisTemplate redis = redis(context);
		String job = this.apps.prefix() + "{job:EveryTwoSeconds.tick}";
		long now = System.currentTimeMillis();
		redis.opsForHash().put(job + ":members", "seen:ghost", Long.toString(now));
		redis.opsForHash().put(job + ":members", "fired:ghost", Long.toString(now));
		JobGuardRegistry registry = context.getBean(JobGuardRegistry.class);
		await().atMost(Duration.ofSeconds(20)).until(() -> registry.history("EveryTwoSeconds.tick").size() >= 4);
		assertThat(registry.members("EveryTwoSeconds.tick")).as("instances seen alive")
			.extracting(JobMember::instance)
			.containsExactlyInAnyOrder("survivor", "ghost");
		context.close();
		JobGuardRegistry observer = this.apps.start("observer", Duration.ZERO, NoJobs.class).getBean(JobGuardRegistry.class);
		List<JobRun> history = new ArrayList<>(observer.history("EveryTwoSeconds.tick"));
		Collections.reverse(history);
		assertThat(history).as("every run of the job body is recorded").hasSize(runs().size());
		assertThat(history).allSatisfy((run) -> assertThat(run.instance()).isEqualTo("survivor"));
		assertThat(history.stream().map(JobRun::scheduledTime)).as("slots that ran").doesNotHaveDuplicates();
		List<JobRun> takenOver = history.stream()
			.filter((run) -> Duration.between(run.scheduledTime(), run.start()).compareTo(Duration.ofMillis(900)) >= 0)
			.toList();
		// the ghost is chosen once (it stops counting once it has not fired for two slots): that slot
		// runs late, through the takeover; every later slot runs on time, on the survivor's own firing
		assertThat(takenOver).as("slots run late in %s", history).hasSize(1);
		assertThat(history.get(history.size() - 1)).as("the latest slot ran on time").isNotIn(takenOver);
		// the elections say so: the ghost was chosen for that slot and the survivor ran it; it was chosen for the others
		Map<Instant, JobElection> elections = observer.elections("EveryTwoSeconds.tick").stream()
			.collect(Collectors.toMap(JobElection::scheduledTime, (election) -> election));
		for (JobRun run : history) {
			JobElection election = elections.get(run.scheduledTime());
			assertThat(election).as("election of %s in %s", run.scheduledTime(), elections).isNotNull();
			assertThat(election.chosenInstance()).isEqualTo(takenOver.contains(run) ? "ghost" : "survivor");
			assertThat(election.ranOn()).isEqualTo("survivor");
		}
		// inside each run, JobFiring tells the run which slot it is for and whether it is a takeover
		assertThat(firings()).extracting(JobFiring::slot)
			.containsExactlyElementsOf(history.stream().map(JobRun::scheduledTime).toList());
		assertThat(firings()).allSatisfy((firing) -> {
			assertThat(firing.job()).isEqualTo("EveryTwoSeconds.tick");
			assertThat(firing.instance()).isEqualTo("survivor");
			assertThat(firing.takeover()).isEqualTo(firing.slot().equals(takenOver.get(0).scheduledTime()));
		});
		assertThat(firings()).extracting(JobFiring::token).isSorted().doesNotHaveDuplicates();
		assertThat(JobFiring.current()).as("outside a run").isEmpty();
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void aClockOffByMoreThanTheToleranceIsNamedInAWarningAndNoSlotRunsTwice() throws Exception {
		ConfigurableApplicationContext exact = this.apps.start("exact", Duration.ZERO, EveryTwoSeconds.class,
				"lockstep.job-guard.skew-tolerance=1s");
		this.apps.start("ahead", Duration.ofSeconds(3), EveryTwoSeconds.class, "lockstep.job-guard.skew-tolerance=1s");
		JobGuardRegistry registry = exact.getBean(JobGuardRegistry.class);
		await().atMost(Duration.ofSeconds(20)).until(() -> output.text().contains("early by Redis's clock")
				&& registry.history("EveryTwoSeconds.tick").size() >= 4);
		assertThat(output.text()).contains("Job 'EveryTwoSeconds.tick' fired its slot")
			.contains("early by Redis's clock, more than lockstep.job-guard.skew-tolerance (1s): this instance's clock runs ahead");
		assertThat(registry.history("EveryTwoSeconds.tick").stream().map(JobRun::scheduledTime)).as("slots that ran")
			.doesNotHaveDuplicates();
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void whileRedisIsDownFiringsAreSkippedWithAWarningRecordedWhenItIsBackAndRunsResume()
			throws Exception {
		try (RedisServer redis = RedisServer.start(); JobApps own = JobApps.on(redis.host(), redis.port())) {
			ConfigurableApplicationContext context = own.start("solo", Duration.ZERO, EveryTwoSeconds.class,
					"lockstep.command-timeout=500ms");
			JobGuardRegistry registry = context.getBean(JobGuardRegistry.class);
			Queue<String[]> runs = runs(own.prefix());
			await().atMost(Duration.ofSeconds(15)).until(() -> !runs.isEmpty());
			redis.kill();
			int runsBeforeOutage = runs.size();
			Instant outage = Instant.now();
			// fails closed: no firing runs unguarded while the guard cannot reach Redis (three slots)
			// the warning names the Redis that was tried and the settings behind it
			String warning = "Redis at " + redis.host() + ":" + redis.port()
					+ " (spring.data.redis.host/port or spring.data.redis.url) failed while claiming a firing of job "
					+ "'EveryTwoSeconds.tick'; the firing does not run";
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.text().split(java.util.regex.Pattern.quote(warning), -1).length - 1 >= 3);
			assertThat(runs).as("runs while Redis was down").hasSize(runsBeforeOutage);
			redis.restart();
			// the registry's reads fail within the command timeout until Lettuce has reconnected
			await().atMost(Duration.ofSeconds(60))
				.ignoreException(LockUnavailableException.class)
				.until(() -> registry.history("EveryTwoSeconds.tick").size() >= 2);
			assertThat(registry.history("EveryTwoSeconds.tick").stream().map(JobRun::scheduledTime)).doesNotHaveDuplicates();
			assertThat(runs).hasSizeGreaterThan(runsBeforeOutage);
			// the skip could not be written at the firing; it is once Redis answers again. This Redis came back
			// empty, so the slots until three skew tolerances after the loss was noticed are skipped too (any of
			// them may have run before it): the last skip may be one of those
			JobSkip skip = registry.lastSkip("EveryTwoSeconds.tick").orElseThrow();
			assertThat(skip.reason()).satisfiesAnyOf(
					// within the command timeout, or at once while Lettuce knows the connection is down
					(reason) -> assertThat(reason).containsAnyOf("Redis could not be reached within lockstep.command-timeout (500ms)",
							"Redis could not be reached: the connection is down"),
					(reason) -> assertThat(reason).startsWith("Redis lost the job's records: slots up to "));
			assertThat(skip.instance()).isEqualTo("solo");
			// (Lettuce may take a moment to reconnect after the restart, so a slot after it may be the last skipped)
			Instant firstRunAfter = registry.history("EveryTwoSeconds.tick").stream().map(JobRun::scheduledTime)
				.filter((slot) -> slot.isAfter(outage)).min(Instant::compareTo).orElseThrow();
			assertThat(skip.scheduledTime()).isAfter(outage.minusSeconds(2)).isBefore(firstRunAfter);
		}
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void twoServicesWithAJobOfOneNameRunItEachUnlessTheyShareAScope() throws Exception {
		// one instance of a billing service, two of a shipping service, each with EveryTwoSeconds.tick
		ConfigurableApplicationContext billing = this.apps.start("billing-1", Duration.ZERO, EveryTwoSeconds.class,
				"spring.application.name=billing");
		ConfigurableApplicationContext shipping = this.apps.start("shipping-1", Duration.ZERO, EveryTwoSeconds.class,
				"spring.application.name=shipping");
		this.apps.start("shipping-2", Duration.ZERO, EveryTwoSeconds.class, "spring.application.name=other",
				"lockstep.job-guard.scope=shipping");
		JobGuardRegistry billingRecords = billing.getBean(JobGuardRegistry.class);
		JobGuardRegistry shippingRecords = shipping.getBean(JobGuardRegistry.class);
		await().atMost(Duration.ofSeconds(20)).until(() -> billingRecords.history("EveryTwoSeconds.tick").size() >= 3
				&& shippingRecords.history("EveryTwoSeconds.tick").size() >= 3);
		assertThat(billingRecords.history("EveryTwoSeconds.tick"))
			.allSatisfy((run) -> assertThat(run.instance()).isEqualTo("billing-1"));
		List<JobRun> shippingRuns = shippingRecords.history("EveryTwoSeconds.tick");
		assertThat(shippingRuns).allSatisfy((run) -> assertThat(run.instance()).isIn("shipping-1", "shipping-2"));
		assertThat(shippingRuns.stream().map(JobRun::scheduledTime)).as("shipping's slots").doesNotHaveDuplicates();
		assertThat(redis(billing).hasKey(this.apps.prefix() + "billing:{job:EveryTwoSeconds.tick}:history")).isTrue();
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void shutdownLetsARunningJobFinishAndReleaseItsGuard() throws Exception {
		// Started outside the scheduler (as an on-demand run or a takeover would be), and deaf to
		// interrupts: only the guard's own shutdown wait keeps Redis open until the job gives its guard up.
		ConfigurableApplicationContext context = this.apps.start("leaving", Duration.ZERO, SlowJob.class);
		StringRedisTemplate redis = redis(this.apps.start("observer", Duration.ZERO, NoJobs.class));
		String guard = this.apps.prefix() + "{job:SlowJob.work}:guard";
		String history = this.apps.prefix() + "{job:SlowJob.work}:history";
		Thread run = new Thread(() -> context.getBean(SlowJob.class).work());
		run.start();
		await().atMost(Duration.ofSeconds(15)).until(() -> Boolean.TRUE.equals(redis.hasKey(guard)));
		context.close();
		run.join(10_000);
		assertThat(runs()).hasSize(1);
		assertThat(redis.hasKey(guard)).as("guard left behind").isFalse();
		assertThat(redis.opsForList().index(history, 0)).as("the run's record").contains("|success|");
	}

	private static StringRedisTemplate redis(ConfigurableApplicationContext context) {
		StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
		redis.afterPropertiesSet();
		return redis;
	}

	private static long ceil(long millis, long step) {
		return ((millis + step - 1) / step) * step;
	}

	/** What the jobs of this test's instances (those under its current key prefix) did. */
	private Queue<String[]> runs() {
		return runs(this.apps.prefix());
	}

	private Queue<JobFiring> firings() {
		return FIRINGS.computeIfAbsent(this.apps.prefix(), (prefix) -> new ConcurrentLinkedQueue<>());
	}

	private static Queue<String[]> runs(String keyPrefix) {
		return RUNS.computeIfAbsent(keyPrefix, (prefix) -> new ConcurrentLinkedQueue<>());
	}

	static class Job {

		@Value("${lockstep.job-guard.instance-id}")
		String instance;

		@Value("${lockstep.key-prefix}")
		String keyPrefix;

		@Value("${test.skew-millis}")
		long skew;

		Clock clock() {
			return Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(this.skew));
		}

		/**
		 * Records a run of a cron job with its slot, read from the instance's own (skewed) clock:
		 * the latest slot at or before the run's start. A scheduler fires a slot when its own clock
		 * reaches it (give or take a few milliseconds: the 200 ms), and the next slot's run cannot
		 * start before that slot is due, so a run that starts late on a loaded machine (up to 1.8 s
		 * on a 2 s cron) still counts for its own slot, not the nearest one.
		 */
		void record(long period) {
			long slot = Math.floorDiv(clock().millis() + 200, period) * period;
			runs(this.keyPrefix).add(new String[] { this.instance, Long.toString(slot) });
		}

		/** Records a run of a job without slots (fixed-rate, on demand), with its own clock's time. */
		void record() {
			runs(this.keyPrefix).add(new String[] { this.instance, Long.toString(clock().millis()) });
		}

		/** Records what {@link JobFiring#current()} says inside the run. */
		void recordFiring() {
			FIRINGS.computeIfAbsent(this.keyPrefix, (prefix) -> new ConcurrentLinkedQueue<>())
				.add(JobFiring.current().orElseThrow());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EveryTwoSeconds extends Job {

		@Scheduled(cron = "*/2 * * * * *")
		@JobGuard
		public void tick() {
			record(2000);
			recordFiring();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LongerThanItsPeriod extends Job {

		static final Queue<String> SKIPS = new ConcurrentLinkedQueue<>();

		@Scheduled(cron = "* * * * * *")
		@JobGuard
		public void work() throws InterruptedException {
			recordFiring();
			Thread.sleep(1500);
		}

		@Bean
		LockListener skipRecorder() {
			return new LockListener() {

				@Override
				public void jobSkipped(String job, String reason) {
					SKIPS.add(reason);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FixedRate extends Job {

		@Scheduled(fixedRate = 500)
		@JobGuard(lockAtLeastFor = "3s")
		public void tick() {
			record();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FixedRateWithoutLockAtLeastFor extends Job {

		@Scheduled(fixedRate = 60_000, initialDelay = 60_000)
		@JobGuard
		public void tick() {
			record();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerThrowsError extends Job {

		static final java.util.concurrent.atomic.AtomicInteger THROWN = new java.util.concurrent.atomic.AtomicInteger();

		@Scheduled(fixedRate = 300)
		@JobGuard(name = "erring-listener", lockAtMostFor = "1m")
		public void tick() {
			record();
		}

		@Bean
		LockListener erringListener() {
			return new LockListener() {

				@Override
				public void jobRan(String job, Duration took, boolean succeeded) {
					THROWN.incrementAndGet();
					throw new AssertionError("a listener's own bug");
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Failing extends Job {

		@Scheduled(cron = "*/2 * * * * *")
		@JobGuard(name = "nightly-export", lockAtMostFor = "${test.export-limit:2m}")
		public void export() {
			throw new IllegalStateException("export target unreachable");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.context.annotation.Import({ Failing.class, SameName.class })
	static class Twins {

	}

	@Configuration(proxyBeanMethods = false)
	static class SameName {

		@Scheduled(cron = "0 0 3 * * *")
		@JobGuard(name = "nightly-export")
		public void other() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Unguarded extends Job {

		@Scheduled(cron = "*/2 * * * * *")
		public void tick() {
			record(2000);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowJob extends Job {

		@JobGuard
		public void work() {
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (System.nanoTime() < end) {
				LockSupport.parkNanos(end - System.nanoTime());
				Thread.interrupted();
			}
			record();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoJobs {

	}

	/** A job the application schedules itself, calling a guarded method of another bean. */
	@Configuration(proxyBeanMethods = false)
	static class ConfigurerJobs {

		@Bean
		Report report() {
			return new Report();
		}

		@Bean
		SchedulingConfigurer reportSchedule(Report report) {
			return (registrar) -> registrar.addCronTask(report::send, "*/2 * * * * *");
		}

	}

	static class Report extends Job {

		@JobGuard(name = "report")
		public void send() {
			record(2000);
		}

	}

}
