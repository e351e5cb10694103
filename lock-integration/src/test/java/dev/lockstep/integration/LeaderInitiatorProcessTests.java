package dev.lockstep.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * Spring Integration's {@code LockRegistryLeaderInitiator} on three JVMs ({@link LeaderProcess})
 * through the auto-configured {@link LockstepLockRegistry}, judged by the leadership events the
 * JVMs record in Redis, on Redis's clock: the leadership intervals (granted to revoked, or to the
 * JVM's kill) of the three never overlap, while the three contend, across a yield, a graceful stop
 * and a SIGKILL of the leader; the killed leader is replaced within its lease; each JVM's events
 * alternate granted, revoked. The control, each JVM's second initiator on an in-memory registry,
 * shows the judge sees overlapping leaders.
 *
 * <p>Spring Integration publishes {@code OnRevokedEvent} after it has unlocked, so when a leader
 * steps down gracefully while others wait, the next one's {@code OnGrantedEvent} can come before
 * it: the test has the others stop contending before the leader yields or stops, and start again
 * after, so that the events' order is the lock's. A kill has no revoked event: the interval ends
 * at the kill.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LeaderInitiatorProcessTests {

	private static final List<String> JVM = List.of("-Xmx160m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
			"-Xss512k");

	/** How much later than the lease a waiting JVM may take over: its next try, on a busy machine. */
	private static final long TAKEOVER_SLACK_MILLIS = 1500;

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void oneLeaderAtATimeAcrossAYieldAStopAndAKill() {
		String prefix = "lp" + UUID.randomUUID().toString().substring(0, 8) + ":";
		TestRedis.Endpoint redis = TestRedis.standalone();
		Map<String, JavaProcess> fleet = new LinkedHashMap<>();
		try (EventLog log = EventLog.open(redis.host(), redis.port(), prefix + "events")) {
			for (String instance : List.of("lead-1", "lead-2", "lead-3")) {
				fleet.put(instance, JavaProcess.start(instance, LeaderProcess.class, JVM, redis.host(),
						Integer.toString(redis.port()), prefix, instance));
			}
			fleet.forEach((instance, process) -> assertThat(process.awaitLine("STARTED " + instance, Duration.ofSeconds(120)))
				.endsWith(LockstepLockRegistry.class.getSimpleName()));
			log.append("up");
			Fleet jvms = new Fleet(log, fleet);

			String first = jvms.awaitLeaderEvent("granted", (instance) -> true, 1);
			Await.sleep(1500);
			List<String> others = new ArrayList<>(fleet.keySet());
			others.remove(first);
			others.forEach((instance) -> jvms.command("stop", instance));
			Await.sleep(500);
			jvms.command("yield", first);
			jvms.awaitLeaderEvent("granted", first::equals, 2);
			jvms.command("stop", first);
			jvms.awaitLeaderEvent("revoked", first::equals, 2);
			others.forEach((instance) -> jvms.command("start", instance));

			String second = jvms.awaitLeaderEvent("granted", others::contains, 1);
			Await.sleep(1000);
			fleet.get(second).kill();
			long killed = log.append("killed", second);
			String third = jvms.awaitLeaderEvent("granted", (instance) -> !instance.equals(second) && others.contains(instance), 1);
			Await.sleep(500);
			jvms.command("stop", third);
			jvms.awaitLeaderEvent("revoked", third::equals, 1);
			long end = log.append("end");

			List<Event> events = log.events();
			String all = describe(events);
			assertEventsAlternatePerJvm(events, fleet.keySet(), all);
			List<Interval> leaders = intervals(events, "leader", end);
			assertThat(overlapping(leaders)).as("overlapping leadership: %s%n%s", leaders, all).isEmpty();
			assertThat(leaders).extracting(Interval::instance).containsExactly(first, first, second, third);
			List<Interval> unshared = intervals(events, "unshared", end);
			assertThat(overlapping(unshared)).as("control, leaders of in-memory registries: %s", unshared).isNotEmpty();

			long takeover = leaders.get(3).from() - killed / 1000;
			assertThat(takeover).as("ms from the leader's kill to the next leader's grant%n%s", all)
				.isBetween(0L, LeaderProcess.LEASE_MILLIS + LeaderProcess.HEARTBEAT_MILLIS + TAKEOVER_SLACK_MILLIS);
			System.out.println(all);
			System.out.println("Leaders: " + leaders + "; the killed one's replaced after " + takeover + " ms");
		}
		finally {
			fleet.values().forEach(JavaProcess::kill);
		}
	}

	/** Per JVM, its leader events: granted, revoked, granted, ... and none after its kill. */
	private static void assertEventsAlternatePerJvm(List<Event> events, Iterable<String> instances, String all) {
		for (String instance : instances) {
			List<String> kinds = new ArrayList<>();
			boolean killed = false;
			for (Event event : events) {
				if (event.field(0).equals("killed") && event.field(1).equals(instance)) {
					killed = true;
				}
				else if (isLeaderEvent(event, "leader") && event.field(2).equals(instance)) {
					assertThat(killed).as("%s recorded %s after its kill%n%s", instance, event, all).isFalse();
					kinds.add(event.field(0));
				}
			}
			for (int i = 0; i < kinds.size(); i++) {
				assertThat(kinds.get(i)).as("event %d of %s: %s%n%s", i, instance, kinds, all)
					.isEqualTo((i % 2 == 0) ? "granted" : "revoked");
			}
		}
	}

	/** Each JVM's leadership of {@code role}: granted until revoked, killed, or {@code end}. */
	private static List<Interval> intervals(List<Event> events, String role, long end) {
		List<Interval> intervals = new ArrayList<>();
		Map<String, Long> since = new LinkedHashMap<>();
		for (Event event : events) {
			if (isLeaderEvent(event, role) && event.field(0).equals("granted")) {
				since.put(event.field(2), event.millis());
			}
			else if ((isLeaderEvent(event, role) && event.field(0).equals("revoked"))
					|| (event.field(0).equals("killed"))) {
				String instance = event.field(event.field(0).equals("killed") ? 1 : 2);
				Long from = since.remove(instance);
				if (from != null) {
					intervals.add(new Interval(instance, from, event.millis()));
				}
			}
		}
		since.forEach((instance, from) -> intervals.add(new Interval(instance, from, end / 1000)));
		return intervals;
	}

	private static boolean isLeaderEvent(Event event, String role) {
		return (event.field(0).equals("granted") || event.field(0).equals("revoked")) && event.field(1).equals(role);
	}

	private static List<List<Interval>> overlapping(List<Interval> intervals) {
		List<List<Interval>> pairs = new ArrayList<>();
		for (int i = 0; i < intervals.size(); i++) {
			for (int j = i + 1; j < intervals.size(); j++) {
				Interval a = intervals.get(i);
				Interval b = intervals.get(j);
				if (a.from() < b.to() && b.from() < a.to()) {
					pairs.add(List.of(a, b));
				}
			}
		}
		return pairs;
	}

	private static String describe(List<Event> events) {
		StringBuilder text = new StringBuilder("Events:");
		events.forEach((e) -> text.append('\n').append(e));
		return text.toString();
	}

	/** One JVM's leadership, in milliseconds on Redis's clock. */
	record Interval(String instance, long from, long to) {

		@Override
		public String toString() {
			return this.instance + " " + this.from + ".." + this.to;
		}

	}

	/** The JVMs and their log: commands sent and leadership events awaited. */
	private record Fleet(EventLog log, Map<String, JavaProcess> processes) {

		/** Has {@code instance} run {@code command} on its leader initiator. */
		void command(String command, String instance) {
			int before = count((e) -> e.field(0).equals("done") && e.field(1).equals(command) && e.field(2).equals(instance));
			this.log.set(command + "-" + instance, 1);
			Await.until(instance + " did " + command, WAIT,
					() -> count((e) -> e.field(0).equals("done") && e.field(1).equals(command)
							&& e.field(2).equals(instance)) > before,
					this::outputs);
		}

		/** Waits for the {@code nth} {@code kind} event of role leader by an instance {@code of}; its instance. */
		String awaitLeaderEvent(String kind, Predicate<String> of, int nth) {
			String[] instance = new String[1];
			Await.until("leader event " + kind + " #" + nth, WAIT, () -> {
				Map<String, Integer> counts = new LinkedHashMap<>();
				for (Event event : this.log.events()) {
					if (isLeaderEvent(event, "leader") && event.field(0).equals(kind) && of.test(event.field(2))
							&& counts.merge(event.field(2), 1, Integer::sum) == nth) {
						instance[0] = event.field(2);
						return true;
					}
				}
				return false;
			}, this::outputs);
			return instance[0];
		}

		private int count(Predicate<Event> condition) {
			return (int) this.log.events().stream().filter(condition).count();
		}

		private String outputs() {
			StringBuilder all = new StringBuilder();
			this.processes.forEach((instance, process) -> all.append("--- ").append(instance).append('\n')
				.append(process.output()).append('\n'));
			return all.append(describe(this.log.events())).toString();
		}

	}

}
