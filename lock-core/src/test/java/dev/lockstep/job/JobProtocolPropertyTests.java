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
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisServer;
import dev.lockstep.testing.Replays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job guard's scripts as a protocol, as jqwik stateful properties against a real Redis of
 * their own (a {@code redis-server} process that the properties flush and restart): simulated
 * instances follow {@link JobRunner}'s rules: fire every cron slot by their own skewed clock,
 * claim it, run it or skip it, take over a slot left to another instance after the skew
 * tolerance, and retry that takeover while another run holds the guard; a chosen instance that
 * finds the guard held tries again soon, and gives its slot up only when an earlier slot's run has
 * held the guard for the whole time between the two slots (a job longer than its period). Time is
 * simulated (a period is {@value #PERIOD} ticks); the scripts and their records are real.
 *
 * <p>The world of a try misbehaves at random, from a seed jqwik draws (in a busy world, which
 * shrinking turns quiet): clocks are skewed by up to 0.4 of the tolerance either way (a tolerance of
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
 * <p>The actions of the chain, between which the world runs on for some periods: Redis loses its
 * data ({@code FLUSHALL}, or a restart without persistence); a claim's reply is lost and the
 * command sent again (as a client does after a reconnect), also with Redis losing its data in
 * between; an instance's clock jumps (a skew appearing mid-run, ahead or behind). Shrinking
 * finds the shortest chain that still fails.
 *
 * <p>Redis's clock is the simulation's: a claim gives the script a latest start (the slot's window,
 * {@link SlotWindow}) that Redis's clock has passed exactly when the simulated time has passed the
 * window, and takeovers and waits stop trying past it, as {@link JobRunner}'s do. The simulation
 * runs far ahead of Redis's clock, so the cutoff of a loss ({@code lost}: the later of the slot
 * and Redis's time, plus three tolerances) is set by the slot.
 *
 * <p>Invariant 1: no slot runs twice and no two runs overlap (unless Redis lost the guard of the run
 * in progress), but for the documented limit: a slot that ran before Redis lost its data may run
 * again on an instance that joined after the loss before any instance noticed it (such an instance
 * cannot tell new records from lost ones), or while a clock is off by more than the tolerance or
 * has jumped (the slots a loss keeps from running are those a clock within the tolerance may have
 * run, as seen by the first instance to notice it); both counted, and shown in the run's course.
 * Invariant 2: no slot is lost while an instance that can run it lives: every slot
 * whose first firer lives through it runs once, whatever the clocks and the pauses, unless its
 * chosen instance gave it up because an earlier slot's run held the guard a whole period on (the
 * documented skip of a job longer than its period), a takeover or a wait found the guard held for
 * the slot's whole window, or Redis lost its data around it. Invariant
 * 3: such a slot whose chosen instance lives through it, when both clocks are within the tolerance,
 * neither instance was stopped and no claim found the guard held, runs on that instance, on time,
 * not through a takeover. The long seeded run ({@code -Dlockstep.jobprotocol.seed=...},
 * {@code -Dlockstep.jobprotocol.slots=...}) also checks that enough slots were covered, and replays
 * reply for reply (the scripts' own clock, Redis's, reaches no decision of theirs here), which
 * {@link #aSeedReplaysTheSameRun} checks. Longer properties: {@code -Dlockstep.jobprotocol.actions}
 * (chain length) and {@code -Dlockstep.jobprotocol.slots}.
 */
class JobProtocolPropertyTests {

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

	/** This class's own server: the properties flush it and restart it. */
	private static RedisServer server;

	private static LettuceConnectionFactory factory;

	private static RedisScripts redis;

	private static StringRedisTemplate template;

	private static int runs;

	@BeforeContainer
	static void startRedis() {
		server = RedisServer.start();
		factory = RedisConnections.standalone(server.host(), server.port());
		redis = new RedisScripts(factory);
		template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
	}

	@AfterContainer
	static void stopRedis() {
		redis.close();
		factory.destroy();
		server.close();
	}

	/** The world of the try being run: the chains start from it (set by the property before it runs its chain). */
	private @Nullable Simulation world;

	@Property(tries = 5)
	void noSlotRunsTwiceNoSlotIsLostWhileAnInstanceLivesAndSlotsRunOnTimeOnTheirChosenInstance(@ForAll long seed,
			@ForAll boolean busy, @ForAll("actions") ActionChain<Simulation> chain) throws Exception {
		int slots = Integer.getInteger("lockstep.jobprotocol.slots", 150);
		this.world = new Simulation(new Random(seed), keys("p" + (++runs) + ":"), busy, false, slots);
		chain.run();
		this.world.complete(false);
	}

	@Provide
	Arbitrary<ActionChain<Simulation>> actions() {
		return ActionChain.<Simulation>startWith(() -> this.world)
			.withAction(3, advance())
			.withAction(loseData())
			.withAction(replayNextClaim())
			.withAction(jumpClock())
			.withMaxTransformations(Integer.getInteger("lockstep.jobprotocol.actions", 12));
	}

	private static boolean going(Simulation simulation) {
		return simulation.now < simulation.slots * PERIOD;
	}

	/** An action that may come while slots remain to fire, its steps drawn from {@code transformers}. */
	private static Action.Independent<Simulation> whileSlotsRemain(Arbitrary<Transformer<Simulation>> transformers) {
		return new Action.Independent<>() {
			@Override
			public boolean precondition(Simulation simulation) {
				return going(simulation);
			}

			@Override
			public Arbitrary<Transformer<Simulation>> transformer() {
				return transformers;
			}
		};
	}

	private static Action.Independent<Simulation> advance() {
		return whileSlotsRemain(Arbitraries.integers().between(1, 12).map((periods) -> Transformer.mutate(
				periods + " periods pass", (Simulation simulation) -> simulation.advance(periods))));
	}

	private static Action.Independent<Simulation> loseData() {
		return whileSlotsRemain(Arbitraries.of(false, true).map((restart) -> Transformer.mutate(
				restart ? "Redis restarts without its data" : "FLUSHALL",
				(Simulation simulation) -> simulation.loseData(restart))));
	}

	private static Action.Independent<Simulation> replayNextClaim() {
		return whileSlotsRemain(Arbitraries.of(false, true).map((acrossLoss) -> Transformer.mutate(
				acrossLoss ? "the next claim's reply is lost, Redis loses its data, the claim is sent again"
						: "the next claim's reply is lost and the claim sent again",
				(Simulation simulation) -> simulation.replayNextClaim(acrossLoss))));
	}

	private static Action.Independent<Simulation> jumpClock() {
		return whileSlotsRemain(Arbitraries.integers().between(0, 7).flatMap((which) -> Arbitraries.of(-4, -2, -1, 1, 2, 4)
			.map((halves) -> Transformer.mutate("instance " + which + "'s clock jumps by " + halves + " half tolerances",
					(Simulation simulation) -> simulation.jumpClock(which, halves)))));
	}

	/**
	 * The world of the property at length, seeded ({@code -Dlockstep.jobprotocol.seed} replays a run),
	 * the disturbances of the actions drawn from the seed too: the invariants hold, and enough slots
	 * are covered for them to mean something.
	 */
	@Example
	void aLongSeededRunHoldsTheInvariantsOverEnoughSlots() throws Exception {
		long seed = Long.getLong("lockstep.jobprotocol.seed", System.nanoTime());
		int slots = Integer.getInteger("lockstep.jobprotocol.slots", 1200);
		try {
			simulate(seed, "long:", slots, false);
		}
		catch (AssertionError ex) {
			throw new AssertionError("job protocol run failed; replay with -Dlockstep.jobprotocol.seed=" + seed + ": "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * The same seed gives the same run, reply for reply, however fast the machine runs it: the
	 * scripts read Redis's clock, so the simulation must not let real time into what they answer.
	 */
	@Example
	void aSeedReplaysTheSameRun() throws Exception {
		long seed = Long.getLong("lockstep.jobprotocol.seed", System.nanoTime());
		for (int run = 0; run < 2; run++) {
			long runSeed = seed + run;
			String first = simulate(runSeed, "replay" + run + "a:", 600, true);
			String again = simulate(runSeed, "replay" + run + "b:", 600, true);
			Replays.assertSameRun(runSeed, first, again);
		}
	}

	/** One long run, its disturbances drawn from the seed; its course: who ran each slot, what was left out of the invariants and why, and its counts. */
	private String simulate(long seed, String keyPrefix, int slots, boolean prune) throws Exception {
		Random random = new Random(new SplittableRandom(seed).nextLong());
		Simulation simulation = new Simulation(random, keys(keyPrefix), true, prune, slots);
		simulation.disturbAtRandom();
		return simulation.complete(true);
	}

	private static JobKeys keys(String keyPrefix) {
		return JobKeys.of(RedisConnections.uniquePrefix() + keyPrefix, "sim");
	}

	static final class Simulation {

		private final Random random;

		private final JobKeys keys;

		private final JobScripts scripts = new JobScripts(redis);

		private final long tolerance;

		private final boolean halfPeriodApart;

		/** Whether the world misbehaves on its own (deaths, joins, pauses, prunes, replays, lost replies, clocks off). */
		private final boolean busy;

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

		final int slots;

		/** Claims refused because their slot's records were pruned by an instance with a shorter horizon. */
		private int prunedAway;

		/** Finishes sent a second time. */
		private int finishesReplayed;

		/** Claims sent a second time after their reply was lost. */
		private int claimsReplayed;

		/** Elections read just before a prune: slot -> chosen instance. */
		private final Map<Long, String> prunedElections = new HashMap<>();

		/** The owner of each slot's run. */
		private final Map<Integer, String> firstRunOf = new HashMap<>();

		/** Slots run again by an instance that joined after Redis lost its data, before any instance noticed (the documented limit). */
		private final Set<Integer> rerunsByBlindInstances = new HashSet<>();

		/** Slots run again after Redis lost its data while a clock was off by more than the tolerance (the documented limit). */
		private final Set<Integer> rerunsWithClocksOff = new HashSet<>();

		/** Whether Redis lost its data and no claim has noticed yet. */
		private boolean lossUnnoticed;

		/** Slots given up past their window: a takeover or a wait that found the guard held until then, or a late firing refused. */
		private final Set<Integer> pastWindow = new HashSet<>();

		/** The elections Redis held when it lost its data. */
		private final Map<Long, String> lostElections = new HashMap<>();

		/** When Redis lost its data (simulated times). */
		private final List<Long> losses = new ArrayList<>();

		/** Runs whose guard went with Redis's data: they no longer exclude others, and their finish finds no guard. */
		private final Set<String> guardLost = new HashSet<>();

		/** Whether the next claim of a slot has its reply lost and is sent again (and whether Redis loses its data in between). */
		private @Nullable Boolean replayNext;

		private long sequence;

		long now;

		/** Whether an instance with a shorter horizon prunes in every run rather than in half of them. */
		private final boolean alwaysPrune;

		Simulation(Random random, JobKeys keys, boolean busy, boolean alwaysPrune, int slots) {
			this.random = random;
			this.keys = keys;
			this.busy = busy;
			this.alwaysPrune = alwaysPrune;
			this.slots = slots;
			long[] tolerances = { PERIOD / 2, PERIOD, 3 * PERIOD, 10 * PERIOD };
			this.tolerance = tolerances[random.nextInt(tolerances.length)];
			// in half the runs, clocks at most half a period apart (however large the tolerance), as
			// well-kept clocks are: a short run of the previous slot, started late on a lagging clock,
			// then often still holds the guard when an instance whose clock runs early fires the next
			this.halfPeriodApart = random.nextBoolean();
			try {
				begin();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** The instances of the start, and the world's own events. */
		private void begin() throws Exception {
			int count = 3 + this.random.nextInt(3);
			for (int i = 0; i < count; i++) {
				join(0, true);
			}
			// firings of the same job without a slot (fixed-rate, or triggered by hand) between the cron slots
			for (int i = 0; i < Math.max(1, slots / 40); i++) {
				schedule(this.random.nextLong(slots * PERIOD), this::fireWithoutSlot);
			}
			if (!this.busy) {
				return;
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
			if (this.random.nextBoolean() || this.alwaysPrune) {
				// behind the slots being fired by more than a clock within the tolerance
				long lag = PERIOD / 2 + this.tolerance / 2 + this.random.nextLong(this.tolerance / 2);
				for (long at = lag + PERIOD; at < slots * PERIOD; at += (1 + this.random.nextInt(3)) * PERIOD) {
					schedule(at, () -> prune(lag));
				}
				// an instance whose clock runs later still fires the slots after they are pruned
				join(0, true, lag + (4 + this.random.nextInt(4)) * PERIOD);
			}
		}

		/** The actions' disturbances at random moments, for the long seeded runs. */
		void disturbAtRandom() {
			for (int i = 0; i < slots / 300; i++) {
				boolean restart = this.random.nextInt(4) == 0;
				schedule(this.random.nextLong(slots * PERIOD), () -> loseData(restart));
			}
			for (int i = 0; i < slots / 100; i++) {
				boolean acrossLoss = this.random.nextInt(3) == 0;
				schedule(this.random.nextLong(slots * PERIOD), () -> replayNextClaim(acrossLoss));
			}
			for (int i = 0; i < slots / 200; i++) {
				int which = this.random.nextInt(8);
				int halves = (this.random.nextBoolean() ? 1 : -1) * (1 + this.random.nextInt(4));
				schedule(this.random.nextLong(slots * PERIOD), () -> jumpClock(which, halves));
			}
		}

		/** Lets the world run on for {@code periods}. */
		void advance(int periods) {
			try {
				long until = this.now + periods * PERIOD;
				drainUntil(until);
				this.now = Math.max(this.now, until);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** Redis loses everything: {@code FLUSHALL}, or a restart of the server, which keeps nothing. */
		void loseData(boolean restart) {
			elections().forEach(this.lostElections::putIfAbsent);
			if (restart) {
				server.restart();
				awaitRedis();
			}
			else {
				server.call("FLUSHALL");
			}
			this.losses.add(this.now);
			this.lossUnnoticed = true;
			// the guard went with the data
			this.guardLost.addAll(this.running.keySet());
			// a slot elected before the loss may be elected again after it (it then never runs twice)
			this.prunedElections.forEach(this.lostElections::putIfAbsent);
			this.prunedElections.clear();
		}

		/** Until the connection is back after a restart (a command sent before Lettuce saw the old one close fails). */
		private void awaitRedis() {
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (true) {
				try {
					template.execute((RedisCallback<String>) (connection) -> connection.ping());
					return;
				}
				catch (RuntimeException ex) {
					if (System.nanoTime() - until > 0) {
						throw ex;
					}
					java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
				}
			}
		}

		void replayNextClaim(boolean acrossLoss) {
			this.replayNext = acrossLoss;
		}

		/** The clock of the {@code which}th live instance that fires (modulo their number) jumps by {@code halves} half tolerances. */
		void jumpClock(int which, int halves) {
			List<Instance> firing = this.instances.stream().filter((i) -> i.alive(this.now) && i.fires).toList();
			if (!firing.isEmpty()) {
				Instance instance = firing.get(which % firing.size());
				instance.skew += halves * this.tolerance / 2;
				instance.jumpedAt = Math.min(instance.jumpedAt, this.now);
			}
		}

		/** Runs the world to its end, checks the invariants and answers the run's course. */
		String complete(boolean coverage) throws Exception {
			drainUntil(Long.MAX_VALUE);
			return new TreeMap<>(this.ranBy) + " " + check(this.slots, coverage);
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
			else if (this.busy && this.random.nextInt(8) == 0) {
				// a clock off by more than the tolerance: its slots may run late or elsewhere, never twice
				skew = (this.random.nextBoolean() ? 1 : -1) * (this.tolerance + this.random.nextLong(this.tolerance + 1));
			}
			Instance instance = new Instance("i" + this.instances.size(), skew, at, fires);
			instance.blind = this.lossUnnoticed;
			this.instances.add(instance);
			member(instance.id, true);
			if (fires) {
				int first = 0;
				while (first < this.slots && first * PERIOD + skew + this.tolerance / 10 < at) {
					first++;
				}
				scheduleFiring(instance, first);
			}
			// some instances die, at a random moment within the run
			if (this.busy && this.random.nextInt(4) == 0) {
				long death = at + this.random.nextLong(200 * PERIOD);
				schedule(death, () -> die(instance));
			}
		}

		/**
		 * The instance's scheduler fires {@code slot} when its clock says so, or if its clock jumped past
		 * that, the first later slot its clock has not passed.
		 */
		private void scheduleFiring(Instance instance, int slot) {
			int next = slot;
			while (next < this.slots && next * PERIOD + instance.skew < this.now) {
				next++;
			}
			if (next >= this.slots) {
				return;
			}
			int s = next;
			schedule(Math.max(this.now, next * PERIOD + instance.skew + this.random.nextLong(this.tolerance / 10 + 1)),
					() -> fire(instance, s));
		}

		private void member(String instance, boolean join) throws Exception {
			this.scripts.member(this.keys, instance, join, 3_600_000, 3_600_000, 600_000).get();
		}

		private void die(Instance instance) {
			if (instance.diedAt != Long.MAX_VALUE) {
				return;
			}
			instance.diedAt = this.now;
			this.running.keySet().removeIf((owner) -> owner.startsWith(instance.id + ":"));
			// its membership lapses a little later, as it stops announcing itself; a new instance replaces it
			schedule(this.now + 3 * PERIOD, () -> member(instance.id, false));
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
			StringRedisTemplate template = JobProtocolPropertyTests.template;
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
				schedule(instance.pausedUntil, () -> fire(instance, slot));
				return;
			}
			scheduleFiring(instance, slot + 1);
			this.firstFirer.putIfAbsent(slot, instance);
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, slot, false);
			if (this.busy && this.random.nextInt(50) == 0) {
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
			if (this.busy && this.random.nextInt(50) == 0) {
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
				long firedAt = this.now;
				schedule(this.now + this.tolerance, () -> takeOver(instance, slot, firedAt));
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
			if (!instance.alive(this.now) || deferred(instance, () -> awaitGuard(instance, slot, firedAt))
					|| pastWindow(slot, firedAt)) {
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

		private void takeOver(Instance instance, int slot, long firedAt) throws Exception {
			if (!instance.alive(this.now) || deferred(instance, () -> takeOver(instance, slot, firedAt))
					|| pastWindow(slot, firedAt)) {
				return;
			}
			String owner = owner(instance);
			List<Object> reply = claim(instance, owner, slot, true);
			long outcome = (Long) reply.get(0);
			if (outcome == 1) {
				start(instance, owner, slot, true);
			}
			else if (outcome == 3) {
				schedule(this.now + PERIOD / 4, () -> takeOver(instance, slot, firedAt));
			}
		}

		/** The slot's window, in simulated time (see {@link SlotWindow}). */
		private long window() {
			return 2 * this.tolerance + PERIOD;
		}

		/**
		 * Whether a takeover or a wait of {@code slot}, fired at {@code firedAt}, has gone on past the
		 * slot's window: JobRunner stops trying then (counted from when the slot is due, if it fired early).
		 */
		private boolean pastWindow(int slot, long firedAt) {
			if (this.now - Math.max(0, slot * PERIOD - firedAt) - firedAt > window()) {
				this.pastWindow.add(slot);
				return true;
			}
			return false;
		}

		private void start(Instance instance, String owner, int slot, boolean takeover) throws Exception {
			// a run whose guard went with Redis's data excludes nobody any more
			assertThat(this.running.keySet().stream().filter((other) -> !this.guardLost.contains(other)).toList())
				.as("runs in progress when %s started slot %d at %d", owner, slot, this.now).isEmpty();
			if (slot != NO_SLOT) {
				List<String> before = this.ranBy.computeIfAbsent(slot, (s) -> new ArrayList<>());
				boolean lostSinceFirstRun = !before.isEmpty() && lostSince(this.started.get(this.firstRunOf.get(slot)));
				if (lostSinceFirstRun && instance.blind) {
					// the documented limit: an instance that joined after Redis lost its data, before any
					// instance noticed the loss, does not know the records it finds are new
					this.rerunsByBlindInstances.add(slot);
				}
				else if (lostSinceFirstRun && clocksOff()) {
					// the documented limit: the slots a loss keeps from running are those a clock within the
					// tolerance may have run before it, as seen by the first instance to notice the loss
					this.rerunsWithClocksOff.add(slot);
				}
				else {
					before.add(instance.id + (takeover ? "*" : ""));
					assertThat(before).as("runs of slot %d at %d (Redis lost its data at %s)", slot, this.now, this.losses)
						.hasSize(1);
					this.firstRunOf.put(slot, owner);
				}
			}
			this.running.put(owner, slot);
			this.slotOf.put(owner, slot);
			this.started.put(owner, this.now);
			long duration = (this.random.nextInt(10) == 0) ? PERIOD + this.random.nextLong(3 * PERIOD)
					: this.random.nextLong(PERIOD / 5);
			if (this.busy && this.random.nextInt(40) == 0) {
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
			// on Redis's clock the kept guard lasts far longer than the step takes however slow the machine
			// (a finish sent again must find it as the first left it); the simulated lease ends it (expire)
			long keptMillis = (atLeast > 0) ? 600_000 : 0;
			long released = this.scripts.finish(this.keys, owner, instance.id, (slot != NO_SLOT) ? slot(slot) : null, 0, 0, null, keptMillis, 20).get();
			assertThat(released).as("%s still held its guard when it finished", owner)
				.isEqualTo(this.guardLost.contains(owner) ? released : 1L);
			if (this.busy && this.random.nextInt(20) == 0) {
				// the same command once more, as a client replays it after a reconnect: nothing changes
				StringRedisTemplate template = JobProtocolPropertyTests.template;
				List<String> history = template.opsForList().range(this.keys.history(), 0, -1);
				String guard = template.opsForValue().get(this.keys.guard());
				long again = this.scripts.finish(this.keys, owner, instance.id, (slot != NO_SLOT) ? slot(slot) : null, 0, 0, null, keptMillis, 20).get();
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
			String value = template.opsForValue().get(this.keys.guard());
			if (value != null && value.startsWith(owner + ":")) {
				template.delete(this.keys.guard());
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
			List<Object> decoded = send(instance, owner, slot, mode, holder);
			Boolean acrossLoss = this.replayNext;
			if (slot != null && acrossLoss != null) {
				// the reply is lost, and the client sends the command again (after Redis lost its data, when it restarted)
				this.replayNext = null;
				this.claimsReplayed++;
				if (acrossLoss) {
					loseData(false);
				}
				List<Object> again = send(instance, owner, slot, mode, holder);
				if (!acrossLoss) {
					assertThat(again.get(0).equals(1L)).as("a claim sent again runs as the first").isEqualTo(decoded.get(0).equals(1L));
				}
				decoded = again;
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

		private List<Object> send(Instance instance, String owner, @Nullable Long slot, JobScripts.Mode mode,
				@Nullable String holder) throws Exception {
			// Redis's clock is the simulation's: a claim gives the script a latest start that its clock has
			// passed exactly when the simulated time has passed the slot's window
			Long latest = null;
			if (slot != null) {
				long index = (slot - this.baseSlot) / SLOT_STEP;
				latest = (this.now <= index * PERIOD + window()) ? Long.MAX_VALUE / 4 : 0L;
			}
			List<Object> reply = this.scripts
				.claim(this.keys, instance.id, owner, 600_000, slot, mode, holder, 3_600_000, 600_000, latest,
						this.tolerance, true)
				.get();
			List<Object> decoded = new ArrayList<>();
			for (Object part : reply) {
				decoded.add((part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part);
			}
			if (decoded.get(0).equals(0L) && slot != null) {
				String reason = decoded.get(1).toString();
				if (reason.startsWith("Redis lost")) {
					this.lossUnnoticed = false;
				}
				else if (reason.startsWith("slot is past the window")) {
					this.pastWindow.add((int) ((slot - this.baseSlot) / SLOT_STEP));
				}
			}
			return decoded;
		}

		/** Checks the invariants and answers what was checked. */
		/** The elections Redis holds: slot -> chosen instance; no slot elected twice. */
		private Map<Long, String> elections() {
			Map<Long, String> elections = new HashMap<>();
			for (String member : template.opsForZSet().range(this.keys.slots(), 0, -1)) {
				// '<slot>:e:<chosen>' for an election, '<slot>:r:<who ran it>' for a decision
				int colon = member.indexOf(':');
				if (member.startsWith("e:", colon + 1)) {
					assertThat(elections.put(Long.parseLong(member.substring(0, colon)), member.substring(colon + 3)))
						.as("a second election of slot %s", member.substring(0, colon)).isNull();
				}
			}
			return elections;
		}

		private String check(int slots, boolean coverage) {
			Map<Long, String> elections = elections();
			this.prunedElections.forEach((slot, chosen) -> {
				String now = elections.putIfAbsent(slot, chosen);
				assertThat(now).as("slot %d elected again after its records were pruned", slot).isIn(null, chosen);
			});
			// the elections Redis lost, for invariant 3 (the slots around a loss are left out of it)
			this.lostElections.forEach(elections::putIfAbsent);
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
				if (lostBetween(slot * PERIOD - 4 * this.tolerance - 2 * PERIOD, end)) {
					// an outage costs firings: those that may have run before it are never run after it
					excluded.merge("Redis lost its data around it", 1, Integer::sum);
					continue;
				}
				if (this.pastWindow.contains(slot) && runners.isEmpty()) {
					// a takeover or a wait that found the guard held for the whole window, or a firing that late
					excluded.merge("past its window", 1, Integer::sum);
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
						&& withinTolerance(chosen, end) && withinTolerance(first, end) && !chosen.pausedBetween(slot * PERIOD - PERIOD - this.tolerance, end)
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
					- excluded.getOrDefault("a reply lost or pruned first", 0)
					- excluded.getOrDefault("Redis lost its data around it", 0);
			if (coverage) {
				assertThat(ranOnChosen)
					.as("slots checked against their chosen instance, of %d whose first firer lived undisturbed (others "
							+ "excluded: %s; claims of pruned slots refused: %d)", eligible, excluded, this.prunedAway)
					.isGreaterThan(Math.max(eligible / 10, 10));
				assertThat(this.runsWithoutSlot).as("runs without a slot between the slots'").isPositive();
			}
			String checked = String.format("tolerance %d, clocks %s, %d slots checked against their chosen instance, "
					+ "%d ran after waiting for the guard, excluded %s, claims of pruned slots refused %d, finishes sent "
					+ "again %d, claims sent again %d, pauses %d, runs without a slot %d, Redis lost its data %d times, "
					+ "slots run again by an instance that joined before the loss was noticed %s, with a clock off %s",
					this.tolerance,
					this.halfPeriodApart ? "half a period apart" : "apart up to 0.8 of it", ranOnChosen, waitedAndRan, excluded,
					this.prunedAway, this.finishesReplayed, this.claimsReplayed, this.pauses, this.runsWithoutSlot,
					this.losses.size(), new TreeSet<>(this.rerunsByBlindInstances),
					new TreeSet<>(this.rerunsWithClocksOff));
			if (coverage) {
				System.out.println("job protocol run: " + checked);
			}
			return checked;
		}

		/** Whether the instance's clock was within the tolerance (0.4 of it) until {@code end}. */
		private boolean withinTolerance(Instance instance, long end) {
			return instance.jumpedAt > end && Math.abs(instance.joinedSkew) * 10 <= this.tolerance * 4;
		}

		/** Whether a live instance's clock is off by more than the tolerance, or has jumped. */
		private boolean clocksOff() {
			return this.instances.stream().anyMatch((i) -> i.alive(this.now)
					&& (i.jumpedAt <= this.now || Math.abs(i.joinedSkew) > this.tolerance));
		}

		/** Whether Redis lost its data at or after {@code time}. */
		private boolean lostSince(@Nullable Long time) {
			return time != null && this.losses.stream().anyMatch((loss) -> loss >= time);
		}

		/** Whether Redis lost its data from {@code from} to {@code until}. */
		private boolean lostBetween(long from, long until) {
			return this.losses.stream().anyMatch((loss) -> loss >= from && loss <= until);
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

		long skew;

		final long joined;

		final boolean fires;

		long diedAt = Long.MAX_VALUE;

		/** Stopped until then (its steps wait), and its stops: {from, until}. */
		long pausedUntil = Long.MIN_VALUE;

		final List<long[]> pauses = new ArrayList<>();

		/** When its clock first jumped (its skew then is not what it was), or never. */
		long jumpedAt = Long.MAX_VALUE;

		/** Its clock's skew when it joined. */
		final long joinedSkew;

		/** Whether it joined after Redis lost its data, before any claim noticed the loss. */
		boolean blind;

		Instance(String id, long skew, long joined, boolean fires) {
			this.id = id;
			this.skew = skew;
			this.joinedSkew = skew;
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
