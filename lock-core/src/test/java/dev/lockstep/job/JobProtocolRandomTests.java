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
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.Replays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The job guard's scripts as a protocol, driven directly against a real Redis by simulated
 * instances that follow {@link JobRunner}'s rules: fire every cron slot by their own skewed clock,
 * claim it, run it or skip it, take over a slot left to another instance after the skew
 * tolerance, and retry that takeover while another run holds the guard; a chosen instance that
 * finds the guard held tries again soon, and gives its slot up only when an earlier slot's run has
 * held the guard for the whole time between the two slots (a job longer than its period). Time is
 * simulated (a period is {@value #PERIOD} ticks); the scripts and their records are real. The world
 * misbehaves at random: clocks are skewed by up to 0.4 of the tolerance either way (a tolerance of
 * half a period up to ten periods), in half the runs also at most half a period apart, and one
 * clock in eight by one to two tolerances; runs last from nothing to several periods, and half of
 * them keep the guard for a while after they end; instances die (before, while or after running),
 * new ones join, and some are stopped for up to three and a half periods and resumed (their
 * scheduler then fires once, late, and their runs hold the guard that much longer); one instance may
 * announce the job without ever firing it; claims and finishes are sent twice (a replayed finish
 * must change nothing); and claim replies are lost (then undone). In half the runs an instance with
 * a shorter horizon than the others' (a smaller {@code lockstep.job-guard.skew-tolerance}) prunes
 * the slot records every few periods, some periods behind the slots being fired, while an instance
 * whose clock runs late still fires the pruned slots. Firings of the same job without a slot (a
 * fixed-rate firing, or a run triggered by hand) come in between, and every claim that finds the
 * guard held must name the holder's slot exactly, none for a run without one (only a slot's run
 * records its owner and slot in the state hash).
 *
 * <p>Invariant 1: no slot runs twice and no two runs overlap. Invariant 2: no slot is lost while an
 * instance that can run it lives: every slot whose first firer lives through it runs once, whatever
 * the clocks and the pauses, unless its chosen instance gave it up because an earlier slot's run
 * held the guard a whole period on (the documented skip of a job longer than its period). Invariant
 * 3: such a slot whose chosen instance lives through it, when both clocks are within the tolerance,
 * neither instance was stopped and no claim found the guard held, runs on that instance, on time,
 * not through a takeover. Seeded: {@code -Dlockstep.jobprotocol.seed=...} replays a run, reply for
 * reply (the scripts' own clock, Redis's, reaches no decision of theirs here), which
 * {@link #aSeedReplaysTheSameRun} checks; the old
 * claim script, which decided a slot skipped whenever its chosen instance found the guard held,
 * fails invariant 2.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JobProtocolRandomTests {

	private static final long PERIOD = 1000;

	/**
	 * A period in the slot numbers given to Redis (they only need to be distinct and ordered), in ms:
	 * long enough that a prune's cutoff, set half a step below a slot by Redis's clock, stays between
	 * the same two slots however long the prune takes to reach Redis.
	 */
	private static final long SLOT_STEP = 1000;

	private static final long LEASE = 4 * PERIOD;

	/** The slot of a run without one, in the simulation's books. */
	private static final int NO_SLOT = -1;

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
	void noSlotRunsTwiceNoSlotIsLostWhileAnInstanceLivesAndSlotsRunOnTimeOnTheirChosenInstance() throws Exception {
		long seed = Long.getLong("lockstep.jobprotocol.seed", System.nanoTime());
		int runs = Integer.getInteger("lockstep.jobprotocol.runs", 3);
		int slots = Integer.getInteger("lockstep.jobprotocol.slots", 1200);
		for (int run = 0; run < runs; run++) {
			long runSeed = seed + run;
			try {
				simulate(runSeed, run + ":", slots, false);
			}
			catch (AssertionError ex) {
				fail("job protocol run failed; replay with -Dlockstep.jobprotocol.seed=" + runSeed
						+ " -Dlockstep.jobprotocol.runs=1: " + ex.getMessage(), ex);
			}
		}
	}

	/**
	 * The same seed gives the same run, reply for reply, however fast the machine runs it: the
	 * scripts read Redis's clock, so the simulation must not let real time into what they answer.
	 */
	@Test
	void aSeedReplaysTheSameRun() throws Exception {
		long seed = Long.getLong("lockstep.jobprotocol.seed", System.nanoTime());
		for (int run = 0; run < 2; run++) {
			long runSeed = seed + run;
			String first = simulate(runSeed, "replay" + run + "a:", 600, true);
			String again = simulate(runSeed, "replay" + run + "b:", 600, true);
			Replays.assertSameRun(runSeed, first, again);
		}
	}

	/** One run; its course: who ran each slot, what was left out of the invariants and why, and its counts. */
	private String simulate(long seed, String keyPrefix, int slots, boolean prune) throws Exception {
		Simulation simulation = new Simulation(new Random(new SplittableRandom(seed).nextLong()),
				JobKeys.of(this.prefix + keyPrefix, "sim"), prune);
		return simulation.run(slots);
	}

	private final class Simulation {

		private final Random random;

		private final JobKeys keys;

		private final JobScripts scripts = new JobScripts(JobProtocolRandomTests.this.redis);

		private final long tolerance;

		private final boolean halfPeriodApart;

		/** Runs started (owner -> simulated start), to tell a run of a job longer than its period from a late one. */
		private final Map<String, Long> started = new HashMap<>();

		/** Slots given up by their chosen instance because an earlier slot's run held the guard a whole period on. */
		private final Set<Integer> givenUp = new HashSet<>();

		/** Pauses (SIGSTOP and resume) made. */
		private int pauses;

		private final long baseSlot = System.currentTimeMillis();

		private final PriorityQueue<Event> events = new PriorityQueue<>();

		private final List<Instance> instances = new ArrayList<>();

		/** Runs started, per slot (instances, with a '*' for a takeover). */
		private final Map<Integer, List<String>> ranBy = new HashMap<>();

		/** Slots for which a first claim found another slot's run holding the guard. */
		private final Set<Integer> held = new HashSet<>();

		/** Each slot's first firer, in the order claims reached Redis. */
		private final Map<Integer, Instance> firstFirer = new HashMap<>();

		/** Runs in progress whose runner is alive: owner -> slot ({@link #NO_SLOT} for a run without one). */
		private final Map<String, Integer> running = new HashMap<>();

		/** Every run started: owner -> slot ({@link #NO_SLOT} for a run without one). */
		private final Map<String, Integer> slotOf = new HashMap<>();

		/** Runs without a slot started (a fixed-rate firing, or one triggered by hand, of the same job). */
		private int runsWithoutSlot;

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

		/** Whether an instance with a shorter horizon prunes in every run rather than in half of them. */
		private final boolean alwaysPrune;

		Simulation(Random random, JobKeys keys, boolean alwaysPrune) {
			this.random = random;
			this.keys = keys;
			this.alwaysPrune = alwaysPrune;
			long[] tolerances = { PERIOD / 2, PERIOD, 3 * PERIOD, 10 * PERIOD };
			this.tolerance = tolerances[random.nextInt(tolerances.length)];
			// in half the runs, clocks at most half a period apart (however large the tolerance), as
			// well-kept clocks are: a short run of the previous slot, started late on a lagging clock,
			// then often still holds the guard when an instance whose clock runs early fires the next
			this.halfPeriodApart = random.nextBoolean();
		}

		/** Runs the simulation, checks the invariants and answers the run's course. */
		String run(int slots) throws Exception {
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
			// instances stopped for a while and resumed (a SIGSTOP, a long GC): they fire late, their runs
			// hold the guard longer; shorter than the guard's lease, so no run loses its guard
			for (int i = 0; i < slots / 60; i++) {
				schedule(this.random.nextLong(slots * PERIOD), this::pauseOne);
			}
			// firings of the same job without a slot (fixed-rate, or triggered by hand) between the cron slots
			for (int i = 0; i < slots / 40; i++) {
				schedule(this.random.nextLong(slots * PERIOD), this::fireWithoutSlot);
			}
			if (this.random.nextBoolean() || this.alwaysPrune) {
				// behind the slots being fired by more than a clock within the tolerance
				long lag = PERIOD / 2 + this.tolerance / 2 + this.random.nextLong(this.tolerance / 2);
				for (long at = lag + PERIOD; at < slots * PERIOD; at += (1 + this.random.nextInt(3)) * PERIOD) {
					schedule(at, () -> prune(lag));
				}
				// an instance whose clock runs later still fires the slots after they are pruned
				join(0, true, lag + (4 + this.random.nextInt(4)) * PERIOD);
			}
			drainUntil(Long.MAX_VALUE);
			return new TreeMap<>(this.ranBy) + " " + check(slots);
		}

		private void join(long at, boolean fires) throws Exception {
			join(at, fires, null);
		}

		/** @param late a skew to give the instance's clock, or null for a random one */
		private void join(long at, boolean fires, @Nullable Long late) throws Exception {
			long spread = this.halfPeriodApart ? Math.min(PERIOD / 4, this.tolerance * 4 / 10) : this.tolerance * 4 / 10;
			long skew = this.random.nextLong(2 * spread + 1) - spread;
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
			// the cutoff half a step below the slot by Redis's clock, which has moved on a little when the script reads it
			long serverNow = template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
			long horizon = serverNow - slot(below) + SLOT_STEP / 2;
			this.scripts.member(this.keys, "pruner", true, 3_600_000, 3_600_000, horizon).get();
			// the script's own clock sets the cutoff it records
			long cutoff = Long.parseLong((String) template.opsForHash().get(this.keys.members(), "pruned"));
			for (int slot = 0; slot < this.slots && slot(slot) < cutoff; slot++) {
				if (!this.ranBy.containsKey(slot)) {
					this.disturbed.add(slot);
				}
			}
		}

		private void pauseOne() {
			List<Instance> alive = this.instances.stream().filter((i) -> i.alive(this.now) && i.fires).toList();
			if (alive.isEmpty()) {
				return;
			}
			Instance instance = alive.get(this.random.nextInt(alive.size()));
			instance.pausedUntil = Math.max(instance.pausedUntil, this.now + PERIOD / 2 + this.random.nextLong(3 * PERIOD));
			instance.pauses.add(new long[] { this.now, instance.pausedUntil });
			this.pauses++;
		}

		/** True when {@code instance} is stopped now: {@code step} then runs when it resumes. */
		private boolean deferred(Instance instance, Step step) {
			if (this.now < instance.pausedUntil) {
				schedule(instance.pausedUntil, step);
				return true;
			}
			return false;
		}

		private void fire(Instance instance, int slot) throws Exception {
			if (!instance.alive(this.now)) {
				return;
			}
			if (this.now < instance.pausedUntil) {
				// its scheduler fires the firing due during the stop once, late, and drops the others
				if (instance.lateFiring < instance.pausedUntil) {
					instance.lateFiring = instance.pausedUntil;
					schedule(instance.pausedUntil, () -> fire(instance, slot));
				}
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
			else if (outcome == 3) {
				// the chosen instance found the guard held by another slot's run: it waits (JobRunner's rules)
				this.held.add(slot);
				held(instance, slot, reply, this.now);
			}
		}

		/** A firing without a slot by a live instance: it runs if the guard is free, else it is skipped. */
		private void fireWithoutSlot() throws Exception {
			List<Instance> alive = this.instances.stream().filter((i) -> i.alive(this.now) && this.now >= i.pausedUntil).toList();
			if (alive.isEmpty()) {
				return;
			}
			Instance instance = alive.get(this.random.nextInt(alive.size()));
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, null, JobScripts.Mode.FIRST, null);
			if (reply.get(0).equals(1L)) {
				this.runsWithoutSlot++;
				start(instance, owner, NO_SLOT, false);
			}
		}

		/**
		 * The chosen instance's claim of {@code slot} found the guard held: it gives the slot up if an
		 * earlier slot's run has held it for the whole time between the two slots (a job longer than its
		 * period), or if a run of unknown slot still holds it after the tolerance; else it tries again
		 * soon (every second once the tolerance has passed).
		 */
		private void held(Instance instance, int slot, List<Object> reply, long firedAt) throws Exception {
			boolean giveUp;
			String holder = null;
			if (reply.size() >= 6 && !reply.get(3).toString().isEmpty() && this.started.containsKey(reply.get(5).toString())) {
				holder = reply.get(5).toString();
				long holderSlot = (Long.parseLong(reply.get(3).toString()) - this.baseSlot) / SLOT_STEP;
				giveUp = holderSlot < slot && this.now - this.started.get(holder) >= (slot - holderSlot) * PERIOD;
			}
			else {
				giveUp = this.now - firedAt >= this.tolerance;
				holder = (reply.size() >= 6) ? reply.get(5).toString() : null;
			}
			if (giveUp) {
				String owner = owner(instance);
				List<Object> given = claim(instance, owner, slot, JobScripts.Mode.GIVE_UP, holder);
				long outcome = (Long) given.get(0);
				if (outcome == 1) {
					start(instance, owner, slot, false);
					return;
				}
				if (outcome == 0) {
					if (given.get(1).toString().startsWith("given up")) {
						this.givenUp.add(slot);
					}
					return;
				}
				reply = given;
			}
			long delay = (this.now - firedAt < this.tolerance) ? PERIOD / 10 + this.random.nextLong(PERIOD * 15 / 100 + 1) : PERIOD;
			schedule(this.now + delay, () -> awaitGuard(instance, slot, firedAt));
		}

		private void awaitGuard(Instance instance, int slot, long firedAt) throws Exception {
			if (!instance.alive(this.now) || deferred(instance, () -> awaitGuard(instance, slot, firedAt))) {
				return;
			}
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, slot, JobScripts.Mode.TAKEOVER, null);
			long outcome = (Long) reply.get(0);
			if (outcome == 1) {
				// the chosen instance's own run, late
				start(instance, owner, slot, false);
			}
			else if (outcome == 3) {
				held(instance, slot, reply, firedAt);
			}
		}

		private void takeOver(Instance instance, int slot) throws Exception {
			if (!instance.alive(this.now) || deferred(instance, () -> takeOver(instance, slot))) {
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
			if (slot != NO_SLOT) {
				this.ranBy.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(instance.id + (takeover ? "*" : ""));
			}
			this.running.put(owner, slot);
			this.slotOf.put(owner, slot);
			this.started.put(owner, this.now);
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
			if (instance.alive(this.now) && deferred(instance, () -> finish(instance, owner, slot))) {
				return;
			}
			if (!instance.alive(this.now)) {
				schedule(this.now + LEASE, () -> expire(owner));
				return;
			}
			this.running.remove(owner);
			// half the runs keep the guard for lockAtLeastFor after they end, half release it at once
			long atLeast = (slot % 2 == 0) ? 0 : PERIOD / 10;
			long released = this.scripts.finish(this.keys, owner, instance.id, (slot != NO_SLOT) ? slot(slot) : null, 0, 0, null, atLeast, 20).get();
			assertThat(released).as("%s still held its guard when it finished", owner).isEqualTo(1L);
			if (this.random.nextInt(20) == 0) {
				// the same command once more, as a client replays it after a reconnect: nothing changes
				StringRedisTemplate template = JobProtocolRandomTests.this.template;
				List<String> history = template.opsForList().range(this.keys.history(), 0, -1);
				String guard = template.opsForValue().get(this.keys.guard());
				long again = this.scripts.finish(this.keys, owner, instance.id, (slot != NO_SLOT) ? slot(slot) : null, 0, 0, null, atLeast, 20).get();
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
			return claim(instance, owner, slot, takeover ? JobScripts.Mode.TAKEOVER : JobScripts.Mode.FIRST, null);
		}

		private List<Object> claim(Instance instance, String owner, int slot, JobScripts.Mode mode, @Nullable String holder)
				throws Exception {
			return claim(instance, owner, slot(slot), mode, holder);
		}

		/** A claim of {@code slot}, or of a firing without one when it is null. */
		private List<Object> claim(Instance instance, String owner, @Nullable Long slot, JobScripts.Mode mode,
				@Nullable String holder) throws Exception {
			List<Object> reply = this.scripts
				.claim(this.keys, instance.id, owner, 600_000, slot, mode, holder, 3_600_000, 600_000)
				.get();
			List<Object> decoded = new ArrayList<>();
			for (Object part : reply) {
				decoded.add((part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part);
			}
			if (decoded.get(0).equals(3L) && decoded.size() >= 6 && this.slotOf.containsKey(decoded.get(5).toString())) {
				// a claim that found the guard held names the holder's slot exactly: none for a run without one
				int held = this.slotOf.get(decoded.get(5).toString());
				assertThat(decoded.get(3).toString()).as("the slot named for %s's run holding the guard", decoded.get(5))
					.isEqualTo((held == NO_SLOT) ? "" : slot(held).toString());
			}
			if (decoded.get(0).equals(0L) && decoded.get(1).toString().contains("pruned")) {
				this.prunedAway++;
			}
			return decoded;
		}

		/** Checks the invariants and answers what was checked. */
		private String check(int slots) {
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
			int waitedAndRan = 0;
			Map<String, Integer> excluded = new TreeMap<>();
			for (int slot = 0; slot < slots; slot++) {
				List<String> runners = this.ranBy.getOrDefault(slot, List.of());
				assertThat(runners).as("runs of slot %d", slot).hasSizeLessThanOrEqualTo(1);
				long end = slot * PERIOD + 4 * this.tolerance + 6 * PERIOD + LEASE;
				Instance first = this.firstFirer.get(slot);
				if (first == null || first.diedAt < end) {
					excluded.merge("first firer died", 1, Integer::sum);
					continue;
				}
				if (this.disturbed.contains(slot)) {
					excluded.merge("a reply lost or pruned first", 1, Integer::sum);
					continue;
				}
				if (this.givenUp.contains(slot)) {
					// the documented skip: a job longer than its period (or a run whose instance was stopped as long)
					assertThat(runners).as("runs of slot %d, given up", slot).isEmpty();
					excluded.merge("given up: an earlier slot's run held the guard a whole period on", 1, Integer::sum);
					continue;
				}
				// no slot is lost while an instance that can run it lives, whatever the clocks and pauses
				assertThat(runners).as("runs of slot %d, first fired by %s%s", slot, first.id,
						this.held.contains(slot) ? ", whose chosen instance found the guard held" : "").hasSize(1);
				if (this.held.contains(slot)) {
					waitedAndRan++;
					excluded.merge("ran after its chosen instance found the guard held", 1, Integer::sum);
					continue;
				}
				Instance chosen = byId.get(elections.get(slot(slot)));
				if (chosen != null && chosen.diedAt >= end && chosen.joined <= slot * PERIOD + chosen.skew - PERIOD
						&& withinTolerance(chosen) && withinTolerance(first) && !chosen.pausedBetween(slot * PERIOD - PERIOD - this.tolerance, end)
						&& !first.pausedBetween(slot * PERIOD - PERIOD - this.tolerance, end)) {
					assertThat(runners).as("runs of slot %d, chosen %s", slot, chosen.id).containsExactly(chosen.id);
					ranOnChosen++;
				}
				else {
					excluded.merge("chosen died, new, paused, or its clock or the first firer's off", 1, Integer::sum);
				}
			}
			// enough slots were covered for the invariants to mean something: a tenth of those whose first firer
			// lived through them, undisturbed by a lost reply or a prune (long runs and deaths exclude the rest; a
			// tolerance of ten periods keeps a slot's first firer in question for fifty periods, so a run with early
			// deaths may leave only a third of the slots with a living first firer)
			int eligible = slots - excluded.getOrDefault("first firer died", 0)
					- excluded.getOrDefault("a reply lost or pruned first", 0);
			assertThat(ranOnChosen)
				.as("slots checked against their chosen instance, of %d whose first firer lived undisturbed (others "
						+ "excluded: %s; claims of pruned slots refused: %d)", eligible, excluded, this.prunedAway)
				.isGreaterThan(Math.max(eligible / 10, 10));
			assertThat(this.runsWithoutSlot).as("runs without a slot between the slots'").isPositive();
			String checked = String.format("tolerance %d, clocks %s, %d slots checked against their chosen instance, "
					+ "%d ran after waiting for the guard, excluded %s, claims of pruned slots refused %d, finishes sent "
					+ "again %d, pauses %d, runs without a slot %d", this.tolerance,
					this.halfPeriodApart ? "half a period apart" : "apart up to 0.8 of it", ranOnChosen, waitedAndRan, excluded,
					this.prunedAway, this.finishesReplayed, this.pauses, this.runsWithoutSlot);
			System.out.println("job protocol run: " + checked);
			return checked;
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

		/** Stopped until then (its steps wait), and its stops: {from, until}. */
		long pausedUntil = Long.MIN_VALUE;

		final List<long[]> pauses = new ArrayList<>();

		/** The firing its scheduler makes when a stop ends (one for all the firings due meanwhile). */
		long lateFiring = Long.MIN_VALUE;

		Instance(String id, long skew, long joined, boolean fires) {
			this.id = id;
			this.skew = skew;
			this.joined = joined;
			this.fires = fires;
		}

		boolean alive(long now) {
			return now < this.diedAt;
		}

		/** Whether it was stopped between {@code from} and {@code until}. */
		boolean pausedBetween(long from, long until) {
			return this.pauses.stream().anyMatch((pause) -> pause[0] < until && pause[1] > from);
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
