package dev.lockstep.job;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.redis.RedisScripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The job guard's scripts as a protocol, driven directly against a real Redis by simulated
 * instances that follow {@link JobRunner}'s rules: fire every cron slot by their own skewed clock,
 * claim it, run it or skip it, take over a slot left to another instance after the skew
 * tolerance, and retry that takeover while another run holds the guard. Time is simulated (a
 * period is {@value #PERIOD} ticks); the scripts and their records are real. The world misbehaves
 * at random: clocks are skewed by up to 0.4 of the tolerance either way (a tolerance of half a
 * period up to three periods), and one in eight by one to two tolerances; runs last from nothing
 * to several periods, and half of them keep the guard for a while after they end; instances die
 * (before, while or after running) and new ones join; one instance may announce the job without
 * ever firing it; claims and finishes are sent twice (a replayed finish must change nothing); and
 * claim replies are lost (then undone). In half the runs an instance with a shorter horizon than
 * the others' (a smaller {@code lockstep.job-guard.skew-tolerance}) prunes the slot records every
 * few periods, some periods behind the slots being fired, while an instance whose clock runs late
 * still fires the pruned slots.
 *
 * <p>Invariant 1: no slot runs twice and no two runs overlap. Invariant 2: every slot whose first
 * firer lives through it runs once, unless a claim found another run in progress, whatever the
 * clocks. Invariant 3: such a slot whose chosen instance lives through it, when both clocks are
 * within the tolerance, runs on that instance, on time, not through a takeover. Seeded: {@code -Dlockstep.jobprotocol.seed=...} replays a run.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JobProtocolRandomTests {

	private static final long PERIOD = 1000;

	/** A period in the slot numbers given to Redis (they only need to be distinct and ordered). */
	private static final long SLOT_STEP = 10;

	private static final long LEASE = 4 * PERIOD;

	private LettuceConnectionFactory factory;

	private RedisScripts redis;

	private StringRedisTemplate template;

	private String prefix;

	@BeforeEach
	void connect() {
		this.factory = RedisConnections.standalone();
		this.redis = new RedisScripts(this.factory);
		this.template = new StringRedisTemplate(this.factory);
		this.template.afterPropertiesSet();
		this.prefix = RedisConnections.uniquePrefix();
	}

	@AfterEach
	void close() {
		this.redis.close();
		this.factory.destroy();
	}

	@Test
	void noSlotRunsTwiceAndEverySlotRunsOnTimeOnItsChosenInstanceWhileItLives() throws Exception {
		long seed = Long.getLong("lockstep.jobprotocol.seed", System.nanoTime());
		int runs = Integer.getInteger("lockstep.jobprotocol.runs", 3);
		int slots = Integer.getInteger("lockstep.jobprotocol.slots", 1200);
		for (int run = 0; run < runs; run++) {
			long runSeed = seed + run;
			try {
				new Simulation(new Random(runSeed), JobKeys.of(this.prefix + run + ":", "sim")).run(slots);
			}
			catch (AssertionError ex) {
				fail("job protocol run failed; replay with -Dlockstep.jobprotocol.seed=" + runSeed
						+ " -Dlockstep.jobprotocol.runs=1: " + ex.getMessage(), ex);
			}
		}
	}

	private final class Simulation {

		private final Random random;

		private final JobKeys keys;

		private final JobScripts scripts = new JobScripts(JobProtocolRandomTests.this.redis);

		private final long tolerance;

		private final long baseSlot = System.currentTimeMillis();

		private final PriorityQueue<Event> events = new PriorityQueue<>();

		private final List<Instance> instances = new ArrayList<>();

		/** Runs started, per slot (instances, with a '*' for a takeover). */
		private final Map<Integer, List<String>> ranBy = new HashMap<>();

		/** Slots for which a first claim found another slot's run holding the guard. */
		private final Set<Integer> held = new HashSet<>();

		/** Each slot's first firer, in the order claims reached Redis. */
		private final Map<Integer, Instance> firstFirer = new HashMap<>();

		/** Runs in progress whose runner is alive: owner -> slot. */
		private final Map<String, Integer> running = new HashMap<>();

		/** Slots in which a claim's reply was lost (and the claim undone): the invariants do not cover them. */
		private final Set<Integer> disturbed = new HashSet<>();

		private int slots;

		/** Claims refused because their slot's records were pruned by an instance with a shorter horizon. */
		private int prunedAway;

		/** Finishes sent a second time. */
		private int finishesReplayed;

		/** Elections read just before a prune: slot -> chosen instance. */
		private final Map<Long, String> prunedElections = new HashMap<>();

		private long sequence;

		private long now = Long.MIN_VALUE;

		Simulation(Random random, JobKeys keys) {
			this.random = random;
			this.keys = keys;
			long[] tolerances = { PERIOD / 2, PERIOD, 3 * PERIOD };
			this.tolerance = tolerances[random.nextInt(tolerances.length)];
		}

		void run(int slots) throws Exception {
			this.slots = slots;
			int count = 3 + this.random.nextInt(3);
			for (int i = 0; i < count; i++) {
				join(0, true);
			}
			if (this.random.nextBoolean()) {
				// announces the job but its scheduler never fires it
				join(0, false);
			}
			for (int i = 0; i < slots / 100; i++) {
				schedule(this.random.nextLong(slots * PERIOD), () -> join(this.now, true));
			}
			if (this.random.nextBoolean()) {
				// behind the slots being fired by more than a clock within the tolerance
				long lag = PERIOD / 2 + this.tolerance / 2 + this.random.nextLong(this.tolerance / 2);
				for (long at = lag + PERIOD; at < slots * PERIOD; at += (1 + this.random.nextInt(3)) * PERIOD) {
					schedule(at, () -> prune(lag));
				}
				// an instance whose clock runs later still fires the slots after they are pruned
				join(0, true, lag + (4 + this.random.nextInt(4)) * PERIOD);
			}
			drainUntil(Long.MAX_VALUE);
			check(slots);
		}

		private void join(long at, boolean fires) throws Exception {
			join(at, fires, null);
		}

		/** @param late a skew to give the instance's clock, or null for a random one */
		private void join(long at, boolean fires, @Nullable Long late) throws Exception {
			long skew = Math.round((this.random.nextDouble() * 0.8 - 0.4) * this.tolerance);
			if (late != null) {
				skew = late;
			}
			else if (this.random.nextInt(8) == 0) {
				// a clock off by more than the tolerance: its slots may run late or elsewhere, never twice
				skew = (this.random.nextBoolean() ? 1 : -1) * (this.tolerance + this.random.nextLong(this.tolerance + 1));
			}
			Instance instance = new Instance("i" + this.instances.size(), skew, at, fires);
			this.instances.add(instance);
			this.scripts.member(this.keys, instance.id, true, 3_600_000, 3_600_000, 600_000).get();
			for (int slot = 0; fires && slot < this.slots; slot++) {
				long when = slot * PERIOD + skew + this.random.nextLong(this.tolerance / 10 + 1);
				if (when >= at) {
					int s = slot;
					schedule(when, () -> fire(instance, s));
				}
			}
			// some instances die, at a random moment within the run
			if (this.random.nextInt(4) == 0) {
				long death = at + this.random.nextLong(200 * PERIOD);
				schedule(death, () -> die(instance));
			}
		}

		private void die(Instance instance) {
			if (instance.diedAt != Long.MAX_VALUE) {
				return;
			}
			instance.diedAt = this.now;
			this.running.keySet().removeIf((owner) -> owner.startsWith(instance.id + ":"));
			// its membership lapses a little later, as it stops announcing itself; a new instance replaces it
			schedule(this.now + 3 * PERIOD, () -> this.scripts.member(this.keys, instance.id, false, 3_600_000, 3_600_000, 600_000).get());
			schedule(this.now + 5 * PERIOD, () -> join(this.now, instance.fires));
		}

		/**
		 * The member heartbeat of an instance whose horizon ends {@code lag} behind the simulated now:
		 * it prunes the records of older slots. A slot not run by then is left out of invariants 2 and 3.
		 */
		private void prune(long lag) throws Exception {
			int below = (int) ((this.now - lag) / PERIOD);
			if (below <= 0) {
				return;
			}
			StringRedisTemplate template = JobProtocolRandomTests.this.template;
			// the elections about to go, for the check (a slot elected again after this shows as a second election)
			for (String member : template.opsForZSet().rangeByScore(this.keys.slots(), 0, slot(below + 100))) {
				int colon = member.indexOf(':');
				if (member.startsWith("e:", colon + 1)) {
					this.prunedElections.put(Long.parseLong(member.substring(0, colon)), member.substring(colon + 3));
				}
			}
			long serverNow = template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
			this.scripts.member(this.keys, "pruner", true, 3_600_000, 3_600_000, serverNow - slot(below)).get();
			// the script's own clock sets the cutoff it records
			long cutoff = Long.parseLong((String) template.opsForHash().get(this.keys.members(), "pruned"));
			for (int slot = 0; slot < this.slots && slot(slot) < cutoff; slot++) {
				if (!this.ranBy.containsKey(slot)) {
					this.disturbed.add(slot);
				}
			}
		}

		private void fire(Instance instance, int slot) throws Exception {
			if (!instance.alive(this.now)) {
				return;
			}
			this.firstFirer.putIfAbsent(slot, instance);
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, slot, false);
			if (this.random.nextInt(50) == 0) {
				// the same command once more, as a client replays it after a reconnect
				List<Object> replay = claim(instance, owner, slot, false);
				// it runs if and only if the first ran; a slot left to another stays left to it (a claim that
				// found another run in progress may now find the slot decided: a skip either way)
				assertThat(replay.get(0).equals(1L)).as("a replayed claim runs as the first").isEqualTo(reply.get(0).equals(1L));
				if (!reply.get(0).equals(3L)) {
					// the same run (its token), the same chosen instance, the same reason to skip
					assertThat(replay.subList(0, 2)).as("a replayed claim decides as the first").isEqualTo(reply.subList(0, 2));
				}
			}
			if (this.random.nextInt(50) == 0) {
				// the reply is lost: the instance skips the firing and undoes whatever the claim did
				this.disturbed.add(slot);
				this.scripts.unclaim(this.keys, owner, instance.id, slot(slot)).get();
				return;
			}
			long outcome = (Long) reply.get(0);
			if (outcome == 1) {
				start(instance, owner, slot, false);
			}
			else if (outcome == 2) {
				schedule(this.now + this.tolerance, () -> takeOver(instance, slot));
			}
			else if (outcome == 3 && !this.ranBy.containsKey(slot)) {
				// the guard is held by another slot's run (or a lost reply's claim)
				this.held.add(slot);
			}
		}

		private void takeOver(Instance instance, int slot) throws Exception {
			if (!instance.alive(this.now)) {
				return;
			}
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, slot, true);
			long outcome = (Long) reply.get(0);
			if (outcome == 1) {
				start(instance, owner, slot, true);
			}
			else if (outcome == 3) {
				schedule(this.now + PERIOD / 4, () -> takeOver(instance, slot));
			}
		}

		private void start(Instance instance, String owner, int slot, boolean takeover) throws Exception {
			assertThat(this.running).as("runs in progress when %s started slot %d at %d", owner, slot, this.now).isEmpty();
			this.ranBy.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(instance.id + (takeover ? "*" : ""));
			this.running.put(owner, slot);
			long duration = (this.random.nextInt(10) == 0) ? PERIOD + this.random.nextLong(3 * PERIOD)
					: this.random.nextLong(PERIOD / 5);
			if (this.random.nextInt(40) == 0) {
				// dies while running: the guard lapses after its lease
				schedule(this.now + duration / 2, () -> die(instance));
				schedule(this.now + LEASE, () -> expire(owner));
			}
			else {
				schedule(this.now + duration, () -> finish(instance, owner, slot));
			}
		}

		private void finish(Instance instance, String owner, int slot) throws Exception {
			if (!instance.alive(this.now)) {
				schedule(this.now + LEASE, () -> expire(owner));
				return;
			}
			this.running.remove(owner);
			// half the runs keep the guard for lockAtLeastFor after they end, half release it at once
			long atLeast = (slot % 2 == 0) ? 0 : PERIOD / 10;
			long released = this.scripts.finish(this.keys, owner, instance.id, slot(slot), 0, 0, null, atLeast, 20).get();
			assertThat(released).as("%s still held its guard when it finished", owner).isEqualTo(1L);
			if (this.random.nextInt(20) == 0) {
				// the same command once more, as a client replays it after a reconnect: nothing changes
				StringRedisTemplate template = JobProtocolRandomTests.this.template;
				List<String> history = template.opsForList().range(this.keys.history(), 0, -1);
				String guard = template.opsForValue().get(this.keys.guard());
				long again = this.scripts.finish(this.keys, owner, instance.id, slot(slot), 0, 0, null, atLeast, 20).get();
				assertThat(again).as("%s's finish sent again", owner).isEqualTo(1L);
				assertThat(template.opsForList().range(this.keys.history(), 0, -1)).as("the history after %s's finish sent again",
						owner).isEqualTo(history);
				assertThat(template.opsForValue().get(this.keys.guard())).isEqualTo(guard);
				this.finishesReplayed++;
			}
			if (atLeast > 0) {
				// the kept guard's lease runs out on the simulated clock
				schedule(this.now + atLeast, () -> expire(owner));
			}
		}

		/** The guard's lease ran out (what PX does on Redis's clock, here on the simulated one). */
		private void expire(String owner) {
			String value = JobProtocolRandomTests.this.template.opsForValue().get(this.keys.guard());
			if (value != null && value.startsWith(owner + ":")) {
				JobProtocolRandomTests.this.template.delete(this.keys.guard());
			}
		}

		private List<Object> claim(Instance instance, String owner, int slot, boolean takeover) throws Exception {
			List<Object> reply = this.scripts
				.claim(this.keys, instance.id, owner, 600_000, slot(slot), takeover, 3_600_000, 600_000)
				.get();
			List<Object> decoded = new ArrayList<>();
			for (Object part : reply) {
				decoded.add((part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part);
			}
			if (decoded.get(0).equals(0L) && decoded.get(1).toString().contains("pruned")) {
				this.prunedAway++;
			}
			return decoded;
		}

		private void check(int slots) {
			Map<Long, String> elections = new HashMap<>();
			for (String member : JobProtocolRandomTests.this.template.opsForZSet().range(this.keys.slots(), 0, -1)) {
				// '<slot>:e:<chosen>' for an election, '<slot>:r:<who ran it>' for a decision
				int colon = member.indexOf(':');
				if (member.startsWith("e:", colon + 1)) {
					assertThat(elections.put(Long.parseLong(member.substring(0, colon)), member.substring(colon + 3)))
						.as("a second election of slot %s", member.substring(0, colon)).isNull();
				}
			}
			this.prunedElections.forEach((slot, chosen) -> {
				String now = elections.putIfAbsent(slot, chosen);
				assertThat(now).as("slot %d elected again after its records were pruned", slot).isIn(null, chosen);
			});
			Map<String, Instance> byId = new HashMap<>();
			this.instances.forEach((instance) -> byId.put(instance.id, instance));
			int ranOnChosen = 0;
			Map<String, Integer> excluded = new java.util.TreeMap<>();
			for (int slot = 0; slot < slots; slot++) {
				List<String> runners = this.ranBy.getOrDefault(slot, List.of());
				assertThat(runners).as("runs of slot %d", slot).hasSizeLessThanOrEqualTo(1);
				long end = slot * PERIOD + 4 * this.tolerance + 6 * PERIOD + LEASE;
				Instance first = this.firstFirer.get(slot);
				if (first == null || first.diedAt < end) {
					excluded.merge("first firer died", 1, Integer::sum);
					continue;
				}
				if (this.held.contains(slot) || this.disturbed.contains(slot)) {
					excluded.merge(this.held.contains(slot) ? "a run in progress" : "a reply lost or pruned first", 1,
							Integer::sum);
					continue;
				}
				assertThat(runners).as("runs of slot %d, first fired by %s", slot, first.id).hasSize(1);
				Instance chosen = byId.get(elections.get(slot(slot)));
				if (chosen != null && chosen.diedAt >= end && chosen.joined <= slot * PERIOD - PERIOD
						&& withinTolerance(chosen) && withinTolerance(first)) {
					assertThat(runners).as("runs of slot %d, chosen %s", slot, chosen.id).containsExactly(chosen.id);
					ranOnChosen++;
				}
				else {
					excluded.merge("chosen died, new, or its clock or the first firer's off", 1, Integer::sum);
				}
			}
			// enough slots were covered for the invariants to mean something (long runs and deaths exclude the rest)
			assertThat(ranOnChosen)
				.as("slots checked against their chosen instance (others excluded: %s; claims of pruned slots refused: %d)",
						excluded, this.prunedAway)
				.isGreaterThan(slots / 5);
			System.out.printf("job protocol run: %d slots checked against their chosen instance, excluded %s, "
					+ "claims of pruned slots refused %d, finishes sent again %d%n", ranOnChosen, excluded, this.prunedAway,
					this.finishesReplayed);
		}

		private boolean withinTolerance(Instance instance) {
			return Math.abs(instance.skew) * 10 <= this.tolerance * 4;
		}

		private Long slot(int slot) {
			return this.baseSlot + slot * SLOT_STEP;
		}

		private String owner(Instance instance) {
			return instance.id + ":o" + (++this.sequence);
		}

		private void schedule(long at, Step step) {
			this.events.add(new Event(at, this.sequence++, step));
		}

		private void drainUntil(long until) throws Exception {
			while (!this.events.isEmpty() && this.events.peek().at() <= until) {
				Event event = this.events.poll();
				this.now = Math.max(this.now, event.at());
				event.step().run();
			}
		}

	}

	private static final class Instance {

		final String id;

		final long skew;

		final long joined;

		final boolean fires;

		long diedAt = Long.MAX_VALUE;

		Instance(String id, long skew, long joined, boolean fires) {
			this.id = id;
			this.skew = skew;
			this.joined = joined;
			this.fires = fires;
		}

		boolean alive(long now) {
			return now < this.diedAt;
		}

	}

	@FunctionalInterface
	private interface Step {

		void run() throws Exception;

	}

	private record Event(long at, long order, Step step) implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.order, other.order);
		}

	}

}
