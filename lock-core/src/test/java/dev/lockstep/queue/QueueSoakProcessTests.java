package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueueException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The serial queue under every fault at once: 3 worker JVMs (4 workers each, 3 s leases), each
 * reaching Redis through its own proxy that cuts all its connections every 0.3 to 1.5 s; a task of
 * each of 200 groups submitted every 2 s throughout; Redis (with {@code appendfsync always}) crashed and restarted
 * once; one worker JVM stopped with SIGSTOP past its lease and resumed. What must hold: every task
 * runs to its end, none lost or left dead, never out of order within a group, nothing left in Redis
 * once drained but the done tasks' expiring records; every attempt starts on the attempt Redis
 * counted (none charged without running) and attempts never overlap, except where the paused JVM's
 * attempt outlived its lease (documented: counted and reported, and that attempt is no longer
 * current when it ends). A task may run to its end twice only after an attempt's lease ran out: the
 * paused JVM's, or one whose end could not reach Redis within its lease (at least once, documented).
 * 20 s in CI; {@code -Psoak} runs it 10 minutes
 * ({@code -Dlockstep.faults.seconds}).
 */
@Timeout(value = 1500, unit = TimeUnit.SECONDS)
class QueueSoakProcessTests {

	private static final Logger logger = LoggerFactory.getLogger(QueueSoakProcessTests.class);

	private static final int SECONDS = Integer.getInteger("lockstep.faults.seconds", 20);

	private static final String QUEUE = "soak";

	private static final int GROUPS = 200;

	private static final long LEASE_MILLIS = 3000;

	private final List<AutoCloseable> toClose = new ArrayList<>();

	private final List<JavaProcess> workers = new ArrayList<>();

	private final List<AutoCloseable> cutters = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		stopCutting();
		this.workers.stream().filter(JavaProcess::isAlive).forEach(JavaProcess::resume);
		this.workers.forEach(JavaProcess::kill);
		for (AutoCloseable closeable : this.toClose) {
			closeable.close();
		}
	}

	@Test
	void everyTaskRunsToItsEndInOrderThroughCutsARestartAndAPause() throws Exception {
		RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
		this.toClose.add(redis);
		String prefix = RedisConnections.uniquePrefix();
		List<FaultProxy> proxies = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
			proxies.add(proxy);
			this.toClose.add(proxy);
			JavaProcess worker = JavaProcess.start("soak-" + i, SoakWorkerProcess.class, SoakWorkerProcess.JVM_OPTIONS,
					proxy.host(), Integer.toString(proxy.port()), prefix, QUEUE, "soak-" + i, "4", Long.toString(LEASE_MILLIS));
			this.workers.add(worker);
		}
		for (JavaProcess worker : this.workers) {
			worker.awaitLine("READY", Duration.ofSeconds(60));
		}
		LettuceConnectionFactory direct = RedisConnections.standalone(redis.host(), redis.port());
		this.toClose.add(direct::destroy);
		RedisSerialQueue submitter = new RedisSerialQueue(direct, SerialQueueTests.JSON);
		submitter.setKeyPrefix(prefix);
		submitter.setInstanceId("submitter");
		submitter.setCommandTimeout(Duration.ofSeconds(2));

		Random random = new Random(24);
		for (FaultProxy proxy : proxies) {
			this.cutters.add(proxy.cutEvery(Duration.ofMillis(300), Duration.ofMillis(1500), random.nextLong()));
		}
		long start = System.nanoTime();
		long end = start + TimeUnit.SECONDS.toNanos(SECONDS);
		long restartAt = start + TimeUnit.SECONDS.toNanos(SECONDS) / 3;
		long pauseAt = start + TimeUnit.SECONDS.toNanos(SECONDS) * 2 / 3;
		boolean restarted = false;
		long restartedFrom = 0;
		long restartedUntil = 0;
		boolean paused = false;
		// instance soak-1
		JavaProcess pausedWorker = this.workers.get(1);
		long pausedFrom = 0;
		long pausedUntil = 0;
		Map<String, String> ids = new HashMap<>();
		int round = 0;
		while (System.nanoTime() - end < 0) {
			for (int group = 0; group < GROUPS; group++) {
				String label = "g" + group + "-" + round;
				ids.put(submit(submitter, "g" + group, round, label), label);
			}
			round++;
			if (!restarted && System.nanoTime() - restartAt > 0) {
				restartedFrom = System.nanoTime();
				redis.restart();
				restartedUntil = System.nanoTime();
				restarted = true;
			}
			if (!paused && System.nanoTime() - pauseAt > 0) {
				pausedFrom = System.nanoTime();
				pausedWorker.pause();
				Thread.sleep(LEASE_MILLIS + 2000);
				pausedWorker.resume();
				pausedUntil = System.nanoTime();
				paused = true;
			}
			Thread.sleep(2000);
		}
		stopCutting();
		await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofSeconds(1)).until(() -> {
			QueueStats stats = submitter.stats(QUEUE);
			return stats.queued() + stats.running() == 0;
		});
		// the paused JVM's last attempt may still be ending
		Thread.sleep(1000);

		// an attempt taken just before Redis crashed, whose reply was lost with the connection, has its
		// lease run out before the worker's undo reaches the restarted server when that takes about a
		// lease: it is charged, as a crash is (documented)
		long outage = restartedUntil + TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS + 5000);
		SoakRecord record = SoakRecord.of(this.workers, pausedWorker, "soak-1", restartedFrom, outage);
		int cuts = proxies.stream().mapToInt(FaultProxy::cuts).sum();
		logger.info("Queue soak: {} s, {} tasks of {} groups, {} attempts, {} cuts, Redis restarted once, {} paused {} ms; "
				+ "{} tasks not ended, {} ended twice ({} of them by the paused JVM), {} overlaps ({} involving the "
				+ "paused JVM), {} out of order, {} first started above the attempt Redis counted outside the pause "
				+ "({} attempts taken by the paused JVM and never begun, {} whose lease ran out while Redis restarted), "
				+ "{} dead", SECONDS, ids.size(), GROUPS, record.attempts, cuts, pausedWorker,
				TimeUnit.NANOSECONDS.toMillis(pausedUntil - pausedFrom), record.notEnded(ids.keySet()).size(),
				record.endedTwice.size(), record.endedTwice.stream().filter(record.pausedTasks::contains).count(),
				record.overlaps, record.pausedOverlaps, record.outOfOrder,
				record.chargedUnrun.size(), record.pausedUnrun, record.outageUnrun, submitter.stats(QUEUE).dead());
		assertThat(cuts).as("connection cuts").isGreaterThanOrEqualTo(SECONDS);
		assertThat(record.notEnded(ids.keySet())).as("tasks that never ran to their end").isEmpty();
		assertThat(record.outOfOrder).as("starts out of order within a group").isZero();
		assertThat(record.overlaps - record.pausedOverlaps).as("overlaps not involving the paused JVM").isZero();
		// a task runs again only when an attempt's lease ran out: the paused JVM's, or one whose end could
		// not reach Redis (cut, restarting, or a loaded machine) within its lease (documented: at least once)
		assertThat(record.endedTwiceUnexplained()).as("tasks ended twice, not after a lease ran out").isEmpty();
		assertThat(record.chargedUnrun).as("tasks charged an attempt never run (outside the pause)").isEmpty();
		assertThat(record.staleButCurrent).as("attempts that outlived their lease yet ended believing they were current")
			.isEmpty();
		assertThat(submitter.stats(QUEUE).dead()).as("dead letters").isZero();
		StringRedisTemplate template = new StringRedisTemplate(direct);
		template.afterPropertiesSet();
		Set<String> left = template.keys(prefix + "*");
		assertThat(left).as("keys left once drained: the done tasks' records, deduplication ids and the idle mark, expiring")
			.allMatch((key) -> (key.contains(":t:") || key.contains(":d:") || key.endsWith(":idle")) && template.getExpire(key) != -1);
	}

	private void stopCutting() throws Exception {
		for (AutoCloseable cutter : this.cutters) {
			cutter.close();
		}
		this.cutters.clear();
	}

	private static String submit(RedisSerialQueue submitter, String group, int sequence, String label) throws Exception {
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			try {
				// sent again while Redis restarts: the deduplication id keeps it one task
				return submitter.submit(QUEUE, group, new Item(group, sequence, 20), label);
			}
			catch (SerialQueueException ex) {
				if (System.nanoTime() - giveUp > 0) {
					throw ex;
				}
				Thread.sleep(200);
			}
		}
	}



	/** What the workers printed, checked. */
	private static final class SoakRecord {

		private int attempts;

		private int overlaps;

		private int pausedOverlaps;

		private int outOfOrder;

		/** Attempts the paused JVM took and never began: their leases ran out while it was stopped. */
		private int pausedUnrun;

		/** Attempts charged because their lease ran out while Redis restarted, before their undo reached it. */
		private int outageUnrun;

		private final Set<String> ended = new HashSet<>();

		private final Set<String> endedTwice = new HashSet<>();

		private final Set<String> pausedTasks = new HashSet<>();

		private final List<String> chargedUnrun = new ArrayList<>();

		private final List<String> staleButCurrent = new ArrayList<>();

		private final Map<String, String> lastErrors = new HashMap<>();

		private record Attempt(String id, String group, int sequence, int attempt, long start, long end, boolean paused,
				boolean current) {
		}

		static SoakRecord of(List<JavaProcess> workers, JavaProcess pausedWorker, String pausedInstance, long outageFrom,
				long outageUntil) {
			SoakRecord record = new SoakRecord();
			List<Attempt> attempts = new ArrayList<>();
			for (JavaProcess worker : workers) {
				boolean paused = worker == pausedWorker;
				Map<String, String[]> starts = new HashMap<>();
				for (String line : worker.lines()) {
					String[] part = line.split(" ", 7);
					if (part[0].equals("S")) {
						starts.put(part[1] + "#" + part[4], part);
					}
					else if (part[0].equals("E")) {
						String[] begun = starts.remove(part[1] + "#" + part[2]);
						Attempt attempt = new Attempt(part[1], begun[2], Integer.parseInt(begun[3]), Integer.parseInt(part[2]),
								Long.parseLong(begun[5]), Long.parseLong(part[3]), paused, Boolean.parseBoolean(part[4]));
						attempts.add(attempt);
					}
				}
				// an attempt begun and never ended: its worker is still at it, or was paused; none should be left
				starts.values().forEach((begun) -> attempts.add(new Attempt(begun[1], begun[2], Integer.parseInt(begun[3]),
						Integer.parseInt(begun[4]), Long.parseLong(begun[5]), Long.MAX_VALUE, paused, false)));
			}
			record.attempts = attempts.size();
			Map<String, List<Attempt>> byGroup = new HashMap<>();
			for (Attempt attempt : attempts) {
				byGroup.computeIfAbsent(attempt.group(), (g) -> new ArrayList<>()).add(attempt);
				if (attempt.end() != Long.MAX_VALUE && !record.ended.add(attempt.id())) {
					record.endedTwice.add(attempt.id());
				}
				if (attempt.paused()) {
					record.pausedTasks.add(attempt.id());
				}
			}
			for (List<Attempt> group : byGroup.values()) {
				group.sort(Comparator.comparingLong(Attempt::start));
				int lastSequence = -1;
				for (int i = 0; i < group.size(); i++) {
					Attempt attempt = group.get(i);
					if (attempt.sequence() < lastSequence) {
						record.outOfOrder++;
					}
					lastSequence = Math.max(lastSequence, attempt.sequence());
					for (int j = i + 1; j < group.size() && group.get(j).start() < attempt.end(); j++) {
						record.overlaps++;
						if (attempt.paused() || group.get(j).paused()) {
							record.pausedOverlaps++;
						}
						if (attempt.current() && attempt.end() != Long.MAX_VALUE) {
							record.staleButCurrent.add(attempt.id() + "#" + attempt.attempt());
						}
					}
				}
			}
			// an attempt above 1 whose earlier attempt never began anywhere was charged without running,
			// unless that earlier attempt was taken by the paused JVM (its lease ran out while it was
			// stopped, before its listener was called: the next attempt's last error names its owner)
			Set<String> begun = new HashSet<>();
			Set<String> takenByPaused = new HashSet<>();
			String pausedOwner = "(" + pausedInstance + ":";
			attempts.forEach((attempt) -> begun.add(attempt.id() + "#" + attempt.attempt()));
			for (JavaProcess worker : workers) {
				for (String line : worker.lines()) {
					String[] part = line.split(" ", 7);
					if (part[0].equals("S") && part.length == 7) {
						record.lastErrors.put(part[1] + "#" + part[4], part[6]);
						if (part[6].contains(pausedOwner)) {
							takenByPaused.add(part[1] + "#" + (Integer.parseInt(part[4]) - 1));
						}
					}
				}
			}
			for (Attempt attempt : attempts) {
				String earlier = attempt.id() + "#" + (attempt.attempt() - 1);
				if (attempt.attempt() > 1 && !begun.contains(earlier) && takenByPaused.contains(earlier)) {
					record.pausedUnrun++;
				}
				else if (attempt.attempt() > 1 && !begun.contains(earlier) && attempt.start() - outageFrom > 0
						&& outageUntil - attempt.start() > 0) {
					record.outageUnrun++;
				}
				else if (attempt.attempt() > 1 && !begun.contains(earlier)) {
					record.chargedUnrun.add(attempt.id() + " attempt " + attempt.attempt() + " (last error: "
							+ record.lastErrors.get(attempt.id() + "#" + attempt.attempt()) + ")");
				}
			}
			return record;
		}

		/**
		 * The tasks that ended twice other than by the paused JVM, whose later attempts do not say that
		 * the attempt before ran out of its lease.
		 */
		List<String> endedTwiceUnexplained() {
			List<String> unexplained = new ArrayList<>();
			for (String id : this.endedTwice) {
				if (this.pausedTasks.contains(id)) {
					continue;
				}
				List<String> later = this.lastErrors.keySet().stream()
					.filter((attempt) -> attempt.startsWith(id + "#") && !attempt.equals(id + "#1"))
					.toList();
				if (later.isEmpty()) {
					unexplained.add(id + " (no attempt after the first began)");
				}
				later.stream().filter((attempt) -> !this.lastErrors.get(attempt).contains("its lease ran out"))
					.forEach((attempt) -> unexplained.add(attempt + " (last error: " + this.lastErrors.get(attempt) + ")"));
			}
			return unexplained;
		}

		Set<String> notEnded(Set<String> ids) {
			Set<String> missing = new HashSet<>(ids);
			missing.removeAll(this.ended);
			return missing;
		}

	}

}
