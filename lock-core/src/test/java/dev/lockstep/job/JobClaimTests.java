package dev.lockstep.job;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.ClientOptions;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobNextSlot;
import dev.lockstep.LockListener;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ReplyWait;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The job claim's edge cases on a real Redis and real schedulers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobClaimTests {

	/** A slot within the guard's horizon: the current second. */
	private static final long SLOT = System.currentTimeMillis() / 1000 * 1000;

	private static final long PERIOD = 2000;

	private static final long HORIZON = 300_000;

	private static final long LIVENESS = 15_000;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	/** One job's keys and scripts, with its instances seen alive and having fired it. */
	private static final class Job {

		final JobScripts scripts;

		final JobKeys keys;

		final String prefix = RedisConnections.uniquePrefix();

		final StringRedisTemplate template = new StringRedisTemplate(connectionFactory);

		private final Map<String, String> owners = new HashMap<>();

		private int sequence;

		Job(JobScripts scripts, String name, String... instances) {
			this.scripts = scripts;
			this.keys = JobKeys.of(this.prefix, name);
			this.template.afterPropertiesSet();
			for (String instance : instances) {
				this.template.opsForHash().put(this.keys.members(), "seen:" + instance, Long.toString(System.currentTimeMillis()));
				this.template.opsForHash().put(this.keys.members(), "fired:" + instance, Long.toString(SLOT - PERIOD));
			}
			// an earlier slot's election, so that instances that fired it may be chosen
			this.template.opsForZSet().add(this.keys.slots(), (SLOT - PERIOD) + ":e:" + instances[0], SLOT - PERIOD);
		}

		List<Object> claim(String instance, Long slot) throws Exception {
			return claim(instance, slot, false);
		}

		List<Object> takeover(String instance, Long slot) throws Exception {
			return claim(instance, slot, true);
		}

		private List<Object> claim(String instance, Long slot, boolean takeover) throws Exception {
			String owner = instance + ":t" + (++this.sequence);
			List<Object> reply = decode(
					this.scripts.claim(this.keys, instance, owner, 600_000, slot, takeover, LIVENESS, HORIZON).get());
			if (!reply.get(0).equals(1L)) {
				// {outcome, detail, server time}: the time is checked near Redis's own clock, then left out
				assertThat((Long) reply.get(2)).isCloseTo(System.currentTimeMillis(), within(5_000L));
				reply = reply.subList(0, 2);
			}
			if (reply.get(0).equals(1L)) {
				this.owners.put(instance, owner);
			}
			return reply;
		}

		void finish(String instance, Long slot) throws Exception {
			this.scripts.finish(this.keys, this.owners.get(instance), instance, slot, 0, 0, null, 0, 20).get();
		}

		private static List<Object> decode(List<Object> reply) {
			List<Object> decoded = new ArrayList<>();
			for (Object part : reply) {
				decoded.add((part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part);
			}
			return decoded;
		}

	}

	/**
	 * Skips recorded late (made while Redis could not be reached) interleaved at random with skips
	 * the claim records as they happen, seeded: the recorded skip is always the latest one, and a
	 * late record never replaces a later skip ({@code -Dlockstep.jobskip.seed} repeats a run).
	 */
	@Test
	void aSkipRecordedLateNeverReplacesALaterOne() throws Exception {
		long seed = Long.getLong("lockstep.jobskip.seed", System.nanoTime());
		java.util.Random random = new java.util.Random(seed);
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "skips", "a", "b");
			job.claim("a", SLOT);
			long recordedAt = 0;
			for (int i = 0; i < 400; i++) {
				if (random.nextInt(4) == 0) {
					// a skip as it happens: slot SLOT ran on a already, so b's claim records a skip at Redis's time
					job.claim("b", SLOT);
					recordedAt = Long.parseLong((String) job.template.opsForHash().get(job.keys.state(), "skip.at"));
				}
				else {
					long at = System.currentTimeMillis() + random.nextInt(20_000) - 10_000;
					long outcome = job.scripts.skip(job.keys, "c", at, SLOT - PERIOD, "Redis unreachable " + i).get();
					assertThat(outcome).as("seed %d, step %d", seed, i).isEqualTo((at >= recordedAt) ? 1L : 0L);
					recordedAt = Math.max(recordedAt, at);
				}
				assertThat(job.template.opsForHash().get(job.keys.state(), "skip.at")).as("seed %d, step %d", seed, i)
					.isEqualTo(Long.toString(recordedAt));
			}
		}
	}

	@Test
	void aClaimSentTwiceRunsOnceAndAnUnansweredClaimCanBeUndone() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			JobScripts scripts = new JobScripts(redis);
			JobKeys keys = JobKeys.of(RedisConnections.uniquePrefix(), "daily");
			List<Object> first = scripts.claim(keys, "i1", "i1:a1", 600_000, SLOT, false, LIVENESS, HORIZON).get();
			// the same command again, as a client replays it after a reconnect
			List<Object> replay = scripts.claim(keys, "i1", "i1:a1", 600_000, SLOT, false, LIVENESS, HORIZON).get();
			assertThat(first.get(0)).isEqualTo(1L);
			assertThat(replay.get(0)).isEqualTo(1L);
			assertThat(replay.get(1)).isEqualTo(first.get(1));

			assertThat(scripts.unclaim(keys, "i1:a1", "i1", SLOT).get()).isEqualTo(1L);
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			template.afterPropertiesSet();
			assertThat(template.hasKey(keys.guard())).isFalse();
			List<Object> again = scripts.claim(keys, "i2", "i2:b1", 600_000, SLOT, true, LIVENESS, HORIZON).get();
			assertThat(again.get(0)).as("the slot is free again").isEqualTo(1L);
			assertThat(scripts.unclaim(keys, "i1:a1", "i1", SLOT).get()).as("not i1's any more").isZero();
		}
	}

	/**
	 * A finish sent again after its reply was lost (a client replays it after a reconnect): the run
	 * is recorded once, and the guard is neither released nor kept again, whether the first finish
	 * released it, kept it for lockAtLeastFor, or found it gone (the run outlived lockAtMostFor).
	 */
	@Test
	void aFinishSentTwiceRecordsItsRunOnceAndChangesNothing() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			JobScripts scripts = new JobScripts(redis);
			JobKeys keys = JobKeys.of(RedisConnections.uniquePrefix(), "replayed");
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			template.afterPropertiesSet();
			// released at once, kept for lockAtLeastFor (a minute), and found gone
			long[][] cases = { { 0, 1 }, { 60_000, 1 }, { 0, 0 } };
			int sequence = 0;
			for (long[] finish : cases) {
				String owner = "i1:f" + (++sequence);
				assertThat(scripts.claim(keys, "i1", owner, 600_000, null, false, LIVENESS, HORIZON).get().get(0))
					.isEqualTo(1L);
				if (finish[1] == 0) {
					template.delete(keys.guard());
				}
				long first = scripts.finish(keys, owner, "i1", null, 1_000, 1_500, null, finish[0], 20).get();
				assertThat(first).as("the first finish of %s", owner).isEqualTo(finish[1]);
				List<String> history = template.opsForList().range(keys.history(), 0, -1);
				Long ttl = template.getExpire(keys.guard(), TimeUnit.MILLISECONDS);
				assertThat(scripts.finish(keys, owner, "i1", null, 1_000, 1_500, null, finish[0], 20).get())
					.as("the same finish sent again").isEqualTo(1L);
				assertThat(template.opsForList().range(keys.history(), 0, -1)).as("the history").isEqualTo(history)
					.hasSize(sequence);
				assertThat(template.getExpire(keys.guard(), TimeUnit.MILLISECONDS)).as("the guard's lease")
					.isLessThanOrEqualTo(ttl);
				template.delete(keys.guard());
			}
		}
	}

	@Test
	void aLateFiringOfASlotReadsThatSlotsElectionEvenAfterTheNextSlotWasElected() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "late", "a", "b", "c");
			// b fires S first and S is left to a; c's clock runs ahead and fires S + 1 before a fires S
			assertThat(job.claim("b", SLOT)).containsExactly(2L, "a");
			assertThat(job.claim("c", SLOT + PERIOD)).containsExactly(2L, "b");
			// a's clock runs late: its firing of S still finds S's own election, and runs it on time
			assertThat(job.claim("a", SLOT).get(0)).isEqualTo(1L);
			job.finish("a", SLOT);
			assertThat(job.claim("b", SLOT)).as("S ran once").containsExactly(0L, "slot already ran on a");
		}
	}

	@Test
	void anInstanceThatNeverFiresTheJobIsNeverChosenAndTheOthersTakeTurns() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "idle", "a", "b", "z");
			for (String instance : List.of("a", "b", "z")) {
				job.template.opsForHash().delete(job.keys.members(), "fired:" + instance);
			}
			// z announces itself with the job but its scheduler never fires it
			List<String> runners = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				long slot = SLOT + i * PERIOD;
				for (String instance : List.of("a", "b")) {
					List<Object> reply = job.claim(instance, slot);
					if (reply.get(0).equals(1L)) {
						runners.add(instance);
						job.finish(instance, slot);
					}
					else if (reply.get(0).equals(2L)) {
						assertThat(reply.get(1)).as("chosen for slot %d", i).isNotEqualTo("z");
					}
				}
			}
			assertThat(runners).containsExactly("a", "b", "a", "b", "a", "b");
		}
	}

	@Test
	void aSlotOlderThanTheHorizonIsNeverRunEvenWhenItsRecordIsGone() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "old", "a");
			long old = SLOT - HORIZON - 10_000;
			List<Object> reply = job.claim("a", old);
			assertThat(reply.get(0)).isEqualTo(0L);
			assertThat(reply.get(1).toString()).startsWith("slot is older than the history the guard keeps");
			assertThat(job.template.opsForHash().get(job.keys.state(), "skip.reason").toString()).startsWith("slot is older");
		}
	}

	/**
	 * Two instances with different skew tolerances: the one with the shorter horizon prunes a slot
	 * the other's horizon still covers. A late first firing and a takeover of that slot by the
	 * other are both refused, so the slot, which already ran, does not run again.
	 */
	@Test
	void aSlotPrunedByAnInstanceWithAShorterHorizonIsNeverRunAgain() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "horizons", "a", "b");
			long slot = SLOT - 60_000;
			assertThat(job.claim("a", slot).get(0)).isEqualTo(1L);
			job.finish("a", slot);
			// b's horizon is 30 s: its heartbeat prunes the records of the slot a minute ago
			job.scripts.member(job.keys, "b", true, 3_600_000, LIVENESS, 30_000).get();
			assertThat(job.template.opsForZSet().rangeByScore(job.keys.slots(), slot, slot)).isEmpty();

			// a's own horizon (HORIZON, five minutes) still covers the slot; a clock a minute late fires it
			for (List<Object> reply : List.of(job.claim("a", slot), job.takeover("a", slot))) {
				assertThat(reply.get(0)).isEqualTo(0L);
				assertThat(reply.get(1).toString()).startsWith("slot is older than the slot records kept");
			}
			assertThat(job.template.hasKey(job.keys.guard())).as("no run took the guard").isFalse();
			assertThat(job.template.opsForList().size(job.keys.history())).as("runs recorded").isEqualTo(1L);
			// a slot above the pruned ones is elected as ever (b, elected least recently)
			assertThat(job.claim("a", SLOT)).containsExactly(2L, "b");
		}
	}

	@Test
	void aChosenInstanceThatFindsAnEarlierSlotsRunHoldingTheGuardDecidesNothingUntilItGivesTheSlotUp() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "busy", "a", "b");
			job.template.opsForHash().put(job.keys.members(), "elected:a", Long.toString(SLOT - PERIOD));
			// a runs the previous slot (elected for a by Job), late: b fires this slot meanwhile
			assertThat(job.takeover("a", SLOT - PERIOD).get(0)).isEqualTo(1L);
			String holder = job.owners.get("a");
			List<Object> held = Job.decode(job.scripts.claim(job.keys, "b", "b:x1", 600_000, SLOT, JobScripts.Mode.FIRST,
					null, LIVENESS, HORIZON).get());
			assertThat(held.get(0)).isEqualTo(3L);
			assertThat(held.get(1).toString()).startsWith("held by a (its run of slot " + (SLOT - PERIOD) + ", ");
			// the holder's slot, start and owner, for the caller to tell a late run from a job longer than its period
			assertThat(held.subList(3, 6)).containsExactly(Long.toString(SLOT - PERIOD), held.get(4), holder);
			assertThat((Long) held.get(4)).isCloseTo(System.currentTimeMillis(), within(5_000L));
			JobClaim claim = JobClaim.of("b:x1", held);
			assertThat(claim.holder()).isEqualTo(new JobClaim.Holder(holder, SLOT - PERIOD, (Long) held.get(4)));
			assertThat(claim.heldByAnEarlierSlotForAWholePeriod(SLOT)).as("the run started a moment ago").isFalse();
			// the slot is not decided: the chosen instance (or a takeover) tries again, and a give-up naming
			// another run than the one holding the guard decides nothing either
			assertThat(job.takeover("b", SLOT).get(0)).isEqualTo(3L);
			List<Object> other = Job.decode(job.scripts.claim(job.keys, "b", "b:x2", 600_000, SLOT, JobScripts.Mode.GIVE_UP,
					"a:other", LIVENESS, HORIZON).get());
			assertThat(other.get(0)).isEqualTo(3L);
			// given up while that run holds the guard: decided, so no takeover runs it once the run ends
			List<Object> given = Job.decode(job.scripts.claim(job.keys, "b", "b:x3", 600_000, SLOT, JobScripts.Mode.GIVE_UP,
					holder, LIVENESS, HORIZON).get());
			assertThat(given.get(0)).isEqualTo(0L);
			assertThat(given.get(1).toString()).startsWith("given up: the guard was still held by a (its run of slot ")
				.endsWith("a whole period after that slot (a job longer than its period)");
			String decided = "slot was given up by its chosen instance: the run of an earlier slot still held the guard "
					+ "a whole period later (a job longer than its period)";
			assertThat(job.takeover("a", SLOT)).containsExactly(0L, decided);
			job.finish("a", SLOT - PERIOD);
			assertThat(job.takeover("a", SLOT)).containsExactly(0L, decided);

			// the next slot: found held (by a run without a slot), then the guard is free: the retry runs it
			assertThat(job.claim("b", SLOT + PERIOD)).as("a was elected least recently").containsExactly(2L, "a");
			assertThat(job.claim("b", null).get(0)).isEqualTo(1L);
			List<Object> unknown = job.claim("a", SLOT + PERIOD);
			assertThat(unknown.get(0)).isEqualTo(3L);
			assertThat(unknown.get(1).toString()).startsWith("held by b (its run without a slot, ");
			assertThat(job.takeover("b", SLOT + PERIOD).get(0)).isEqualTo(3L);
			job.finish("b", null);
			assertThat(job.takeover("a", SLOT + PERIOD).get(0)).as("the chosen instance's retry").isEqualTo(1L);
			assertThat(job.takeover("b", SLOT + PERIOD)).containsExactly(0L, "slot already ran on a");
		}
	}

	@Test
	void aJobsRecordsAreReadWithinTheCommandTimeoutAndRedisNotAnsweringIsLockUnavailable() throws Exception {
		TestRedis.Endpoint redis = TestRedis.standalone();
		try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
			// Lettuce's own timeout far longer than the guard's: only the guard's wait can end the read
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build());
			factory.afterPropertiesSet();
			factory.start();
			RedisJobGuard guard = new RedisJobGuard(factory, new GuardedJobs());
			guard.setKeyPrefix(RedisConnections.uniquePrefix());
			guard.setCommandTimeout(Duration.ofMillis(500));
			guard.start();
			try {
				assertThat(guard.history("nightly")).as("read while Redis answers").isEmpty();
				assertThat(guard.lastSkip("nightly")).isEmpty();
				proxy.stall();
				long sent = System.nanoTime();
				assertThatThrownBy(() -> guard.history("nightly")).isInstanceOf(LockUnavailableException.class)
					.hasMessageContaining("did not answer within 500ms")
					.hasMessageContaining("job 'nightly'");
				assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("the read ends with the command timeout")
					.isBetween(Duration.ofMillis(400), Duration.ofSeconds(10));
			}
			finally {
				proxy.heal();
				guard.stop();
				factory.destroy();
			}
		}
	}

	@Test
	void aClaimThatFailsOnAConnectionResetIsSkippedNamingTheResetNotTheCommandTimeout() throws Exception {
		TestRedis.Endpoint redis = TestRedis.standalone();
		try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
			// no reconnect: a command in flight when the connection drops fails at once, as after a reset
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder()
						.commandTimeout(Duration.ofSeconds(5))
						.clientOptions(ClientOptions.builder().autoReconnect(false).build())
						.build());
			factory.afterPropertiesSet();
			factory.start();
			List<String> skips = new CopyOnWriteArrayList<>();
			RedisJobGuard guard = new RedisJobGuard(factory, new GuardedJobs());
			guard.setKeyPrefix(RedisConnections.uniquePrefix());
			guard.setCommandTimeout(Duration.ofSeconds(5));
			guard.setListener(new LockListener() {
				@Override
				public void jobSkipped(String job, String reason) {
					skips.add(reason);
				}
			});
			guard.start();
			try {
				GuardedJob job = new GuardedJob("reset", "Reset.run()", Duration.ofMinutes(1), Duration.ZERO, "* * * * * *",
						"UTC");
				proxy.stall();
				long sent = System.nanoTime();
				CompletableFuture<Object> firing = CompletableFuture.supplyAsync(() -> {
					try {
						return guard.execute(job, Instant.ofEpochMilli(SLOT), () -> "ran", null);
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				});
				Thread.sleep(300);
				proxy.cutAll();
				assertThat(firing.get(10, TimeUnit.SECONDS)).as("the firing's result").isNull();
				assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("the skip came with the reset, not the timeout")
					.isLessThan(Duration.ofSeconds(4));
				assertThat(skips).singleElement()
					.satisfies((reason) -> assertThat(reason).startsWith("Redis failed: ").doesNotContain("command-timeout"));
			}
			finally {
				proxy.heal();
				guard.stop();
				factory.destroy();
			}
		}
	}

	@Test
	void theNextSlotShowsItsElectionOnceMadeAndBeforeThatTheInstanceTheRotationWouldChoose() throws Exception {
		try (RedisScripts redis = new RedisScripts(connectionFactory)) {
			Job job = new Job(new JobScripts(redis), "hourly", "a", "b", "z");
			job.template.opsForHash().delete(job.keys.members(), "fired:z");
			job.template.opsForHash().put(job.keys.members(), "elected:a", Long.toString(SLOT - PERIOD));
			JobRecords records = new JobRecords(job.scripts, new ReplyWait(Duration.ofSeconds(5), "Redis"), job.prefix);
			GuardedJob hourly = new GuardedJob("hourly", "Hourly.run()", Duration.ofMinutes(10), Duration.ZERO,
					"0 0 * * * *", "UTC");
			Instant hour = Instant.ofEpochMilli((System.currentTimeMillis() / 3_600_000 + 1) * 3_600_000);

			// b was never elected, a was; z never fires the job
			assertThat(records.nextSlot(hourly, LIVENESS)).contains(new JobNextSlot("hourly", hour, "b", false));
			// b not seen lately: a is the only candidate
			job.template.opsForHash().put(job.keys.members(), "seen:b", Long.toString(System.currentTimeMillis() - LIVENESS - 1000));
			assertThat(records.nextSlot(hourly, LIVENESS)).contains(new JobNextSlot("hourly", hour, "a", false));
			// once the slot is elected, its choice, whatever the rotation says now
			job.template.opsForZSet().add(job.keys.slots(), hour.toEpochMilli() + ":e:b", hour.toEpochMilli());
			assertThat(records.nextSlot(hourly, LIVENESS)).contains(new JobNextSlot("hourly", hour, "b", true));
			// no candidate at all
			job.template.opsForZSet().remove(job.keys.slots(), hour.toEpochMilli() + ":e:b");
			job.template.opsForHash().delete(job.keys.members(), "fired:a");
			assertThat(records.nextSlot(hourly, LIVENESS)).contains(new JobNextSlot("hourly", hour, null, false));
			assertThat(records.nextSlot(new GuardedJob("fixed", "Fixed.run()", Duration.ofMinutes(1), Duration.ZERO), LIVENESS))
				.as("a job without a cron").isEmpty();
		}
	}

	@Test
	void eachFiringKnowsItsOwnCronSlotWithAReschedulingOrAnAsynchronousScheduler() throws Exception {
		ThreadPoolTaskScheduler pool = new ThreadPoolTaskScheduler();
		pool.initialize();
		SimpleAsyncTaskScheduler async = new SimpleAsyncTaskScheduler();
		async.start();
		try {
			for (TaskScheduler delegate : List.of(pool, async)) {
				FiringTrackingScheduler scheduler = new FiringTrackingScheduler(delegate);
				List<String> wrong = new CopyOnWriteArrayList<>();
				List<Instant> slots = new CopyOnWriteArrayList<>();
				ScheduledFuture<?> task = scheduler.schedule(() -> {
					Instant now = Instant.now();
					Instant slot = TriggerFiring.current().scheduledTime();
					slots.add(slot);
					if (slot.isAfter(now) || now.toEpochMilli() - slot.toEpochMilli() > 900) {
						wrong.add(slot + " read at " + now);
					}
				}, new CronTrigger("* * * * * *"));
				Thread.sleep(3500);
				task.cancel(false);
				assertThat(wrong).as("firings given another slot by %s", delegate).isEmpty();
				assertThat(slots).as("slots seen by %s", delegate).hasSizeGreaterThanOrEqualTo(2).doesNotHaveDuplicates();
			}
		}
		finally {
			pool.shutdown();
			async.stop();
		}
	}

}
