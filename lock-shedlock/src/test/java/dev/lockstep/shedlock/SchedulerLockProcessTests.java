package dev.lockstep.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.lockstep.testing.Await;
import dev.lockstep.testing.EventLog;
import dev.lockstep.testing.EventLog.Event;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's own {@code @SchedulerLock} on three JVMs ({@link ShedLockJobsProcess}) through the
 * auto-configured {@link LockstepLockProvider}, judged by the runs the JVMs record in Redis, on
 * Redis's clock. One fleet for every check, which run side by side on lock names of their own:
 * <ul>
 * <li>a job fired every second by all three runs at most once per firing, and a control without
 * the lock runs several times per firing;</li>
 * <li>a run shorter than lockAtLeastFor keeps the lock until lockAtLeastFor has passed since it
 * was taken, and no longer;</li>
 * <li>runs longer than lockAtMostFor that extend their lock ({@code LockExtender}) never overlap;
 * runs that do not extend it lose it at lockAtMostFor (another JVM's run starts then), and their
 * late unlock leaves the new holder's lock alone;</li>
 * <li>the lock of a run whose JVM is killed (SIGKILL) frees itself within lockAtMostFor.</li>
 * </ul>
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SchedulerLockProcessTests {

	private static final List<String> JVM = List.of("-Xmx160m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
			"-Xss512k");

	/** How much earlier than the lock allows a run may be recorded: the time from acquisition to the record. */
	private static final long RECORDING_SLACK_MILLIS = 250;

	/** How much later than the lock allows another JVM's run may start: its next try, on a busy machine. */
	private static final long TAKEOVER_SLACK_MILLIS = 1500;

	@Test
	void scheduledLocksOnThreeJvms() {
		String prefix = "sp" + UUID.randomUUID().toString().substring(0, 8) + ":";
		TestRedis.Endpoint redis = TestRedis.standalone();
		Map<String, JavaProcess> fleet = new LinkedHashMap<>();
		try (EventLog log = EventLog.open(redis.host(), redis.port(), prefix + "events")) {
			for (String instance : List.of("shed-1", "shed-2", "shed-3")) {
				fleet.put(instance, JavaProcess.start(instance, ShedLockJobsProcess.class, JVM, redis.host(),
						Integer.toString(redis.port()), prefix, instance));
			}
			fleet.forEach((instance, process) -> assertThat(process.awaitLine("STARTED " + instance, Duration.ofSeconds(120)))
				.endsWith(LockstepLockProvider.class.getSimpleName()));
			long up = log.append("up");
			// the extended runs first: the kill must not cut one short
			log.set("extend", 2);
			Await.until("two extended runs ended", Duration.ofSeconds(20),
					() -> log.events().stream().filter((e) -> e.field(0).equals("extend-end")).count() == 2,
					() -> outputs(fleet) + "\n" + describe(log.events()));
			log.set("late", 4);
			Event third = awaitEvent(log, (e) -> is(e, "late-start", 2, "1"), fleet);
			String runner = third.field(1);
			fleet.get(runner).kill();
			long killed = log.append("killed", runner);
			awaitEvent(log, (e) -> is(e, "late-start", 2, "0"), fleet);
			List<Event> events = log.events();
			String all = describe(events);

			assertOneRunPerFiring(events, up, killed, all);
			assertLockAtLeastForHonoured(events, up, killed, all);
			assertExtendedRunsNeverOverlap(events, all);
			assertLockFreesAtLockAtMostForAndLateUnlocksChangeNothing(events, killed, all);
		}
		finally {
			fleet.values().forEach(JavaProcess::kill);
		}
	}

	/** Per firing second of the tick job, from the first after all were up to the last before the kill. */
	private static void assertOneRunPerFiring(List<Event> events, long up, long killed, String all) {
		long first = up / 1_000_000 + 1;
		long last = killed / 1_000_000 - 1;
		Map<Long, List<String>> locked = runsPerSlot(events, "tick", first, last);
		Map<Long, List<String>> unlocked = runsPerSlot(events, "free", first, last);
		assertThat(locked.entrySet().stream().filter((slot) -> slot.getValue().size() > 1).toList())
			.as("firings run more than once, of %d to %d: %s%n%s", first, last, locked, all)
			.isEmpty();
		assertThat(locked.values().stream().filter((runs) -> runs.size() == 1).count())
			.as("firings of %d to %d that ran: %s", first, last, locked)
			.isGreaterThanOrEqualTo((last - first + 1) / 2);
		assertThat(unlocked.values().stream().filter((runs) -> runs.size() > 1).count())
			.as("control: firings of the unlocked job run by several instances: %s", unlocked)
			.isPositive();
		System.out.printf("Per firing %d to %d, locked: %s; unlocked: %s%n", first, last, locked, unlocked);
	}

	private static Map<Long, List<String>> runsPerSlot(List<Event> events, String kind, long first, long last) {
		Map<Long, List<String>> runs = new TreeMap<>();
		for (long slot = first; slot <= last; slot++) {
			runs.put(slot, new ArrayList<>());
		}
		for (Event event : events) {
			if (event.field(0).equals(kind)) {
				List<String> slot = runs.get(Long.parseLong(event.field(1)));
				if (slot != null) {
					slot.add(event.field(2));
				}
			}
		}
		return runs;
	}

	/** Consecutive runs of the at-least job start lockAtLeastFor apart, not lockAtMostFor. */
	private static void assertLockAtLeastForHonoured(List<Event> events, long up, long killed, String all) {
		List<Long> starts = events.stream()
			.filter((e) -> e.field(0).equals("atleast") && e.micros() >= up && e.micros() < killed)
			.map(Event::millis)
			.toList();
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < starts.size(); i++) {
			gaps.add(starts.get(i) - starts.get(i - 1));
		}
		long atLeast = ShedLockJobsProcess.Jobs.AT_LEAST_FOR.toMillis();
		assertThat(gaps).as("ms between runs tried every 50ms by 3 instances, locked at least for %d ms%n%s", atLeast, all)
			.hasSizeGreaterThanOrEqualTo(2)
			.allSatisfy((gap) -> assertThat(gap).isGreaterThanOrEqualTo(atLeast - RECORDING_SLACK_MILLIS)
				.isLessThan(atLeast + 4000));
		System.out.println("ms between runs locked at least for " + atLeast + " ms: " + gaps);
	}

	/** Two runs 1.5s long under a 1s lockAtMostFor, each extending its lock every 300ms: one after the other. */
	private static void assertExtendedRunsNeverOverlap(List<Event> events, String all) {
		List<Event> runs = events.stream().filter((e) -> e.field(0).startsWith("extend-")).toList();
		assertThat(runs).as(all).extracting((e) -> e.field(0))
			.containsExactly("extend-start", "extend-end", "extend-start", "extend-end");
		assertThat(runs.get(0).field(1)).isEqualTo(runs.get(1).field(1));
		assertThat(runs.get(2).field(1)).isEqualTo(runs.get(3).field(1));
		long atMost = ShedLockJobsProcess.Jobs.EXTEND_AT_MOST_FOR.toMillis();
		for (int run = 0; run < 4; run += 2) {
			assertThat(runs.get(run + 1).millis() - runs.get(run).millis())
				.as("ms run %s lasted: longer than its lockAtMostFor, so only its extensions kept the others out", runs.get(run))
				.isGreaterThan(atMost + 200);
		}
	}

	/**
	 * The late job's runs: the first two outlive lockAtMostFor, so the next run starts when it ends
	 * (not earlier: the late unlock of the run before lands within that time and changes nothing);
	 * the third's JVM is killed, and its lock frees at lockAtMostFor.
	 */
	private static void assertLockFreesAtLockAtMostForAndLateUnlocksChangeNothing(List<Event> events, long killed,
			String all) {
		long[] start = new long[4];
		long[] end = new long[2];
		for (int run = 0; run < 4; run++) {
			String left = Integer.toString(3 - run);
			start[run] = only(events, (e) -> is(e, "late-start", 2, left), all).millis();
			if (run < 2) {
				end[run] = only(events, (e) -> is(e, "late-end", 2, left), all).millis();
			}
		}
		long atMost = ShedLockJobsProcess.Jobs.LATE_AT_MOST_FOR.toMillis();
		for (int run = 1; run < 4; run++) {
			assertThat(start[run] - start[run - 1])
				.as("ms from run %d's start to run %d's: its lock frees at lockAtMostFor (%d ms), %s%n%s", run, run + 1,
						atMost, (run == 3) ? "its JVM killed" : "its run going on", all)
				.isBetween(atMost - RECORDING_SLACK_MILLIS, atMost + TAKEOVER_SLACK_MILLIS);
		}
		for (int run = 0; run < 2; run++) {
			assertThat(end[run])
				.as("control: run %d ended, and unlocked late, while run %d held the lock%n%s", run + 1, run + 2, all)
				.isBetween(start[run + 1], start[run + 1] + atMost - RECORDING_SLACK_MILLIS);
		}
		assertThat(killed / 1000).as("the kill came while run 3 held the lock").isBetween(start[2], start[2] + atMost);
	}

	private static boolean is(Event event, String kind, int field, String value) {
		return event.field(0).equals(kind) && event.fields().size() > field && event.field(field).equals(value);
	}

	private static Event only(List<Event> events, Predicate<Event> condition, String all) {
		List<Event> found = events.stream().filter(condition).toList();
		assertThat(found).as(all).hasSize(1);
		return found.get(0);
	}

	private static Event awaitEvent(EventLog log, Predicate<Event> condition, Map<String, JavaProcess> fleet) {
		Event[] found = new Event[1];
		Await.until("the event expected", Duration.ofSeconds(20), () -> {
			Optional<Event> event = log.events().stream().filter(condition).findFirst();
			event.ifPresent((e) -> found[0] = e);
			return event.isPresent();
		}, () -> outputs(fleet) + "\n" + describe(log.events()));
		return found[0];
	}

	private static String describe(List<Event> events) {
		StringBuilder text = new StringBuilder("Events:");
		events.stream().filter((e) -> !e.field(0).equals("free")).forEach((e) -> text.append('\n').append(e));
		return text.toString();
	}

	private static String outputs(Map<String, JavaProcess> fleet) {
		StringBuilder all = new StringBuilder();
		fleet.forEach((instance, process) -> all.append("--- ").append(instance).append('\n').append(process.output())
			.append('\n'));
		return all.toString();
	}

}
