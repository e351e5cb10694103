package dev.lockstep.lock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The permit scripts as a protocol, driven directly against a real Redis by simulated clients
 * that follow the engine's rules (an owner id per queueing, a hand-over confirmed before it
 * counts), while leases run out for real on Redis's clock, clients stall, give up, replay their
 * acquire, and release what is not theirs. Clients disagree on the number of permits (2 or 3), as
 * in a rolling deploy.
 *
 * <p>After every step: never more unexpired holders than the largest number among them (so never
 * more than 3, and never more than 2 once only callers of 2 hold); every token above all earlier
 * ones; queued clients granted in the order they queued; no entry queued twice; a release by a
 * non-owner leaves every live holder as it was. At the end, once everyone leaves, nothing is held
 * or queued. Redis may also lose its data: a holder from before believes on until its next renewal
 * fails (the documented limit), and tokens still rise across it.
 *
 * <p>A jqwik stateful property: each action is one step (a client acts, a release by a non-owner,
 * time passes, Redis loses its data), and a failing chain is shrunk to the shortest that still
 * fails. The seed jqwik prints, given to {@code @Property(seed = ...)}, replays the chain's choices
 * but not its course: the leases and grant leases run out in real time on Redis's clock (the
 * scripts drop a holder whose score is behind Redis's {@code TIME}), so whether a lease has run out
 * when a step comes depends on how fast the steps before it ran (a seed run twice, unloaded,
 * parted within its first fifty steps). A replay would need a time of the run's own that real time
 * follows with room to spare. CI runs lock-core's {@code jqwik.tries.default} chains of
 * {@code lockstep.protocol.steps} (default 150) steps; the soak profile runs more and longer.
 */
class PermitProtocolPropertyTests {

	private static final long LEASE_MS = 300;

	/** How long a client believes a confirmed lease lasts, as the engine does (LockOwnership#confirm). */
	private static final long BELIEVED_LEASE_NANOS = TimeUnit.MILLISECONDS.toNanos(LEASE_MS)
			- LockOwnership.REDIS_CLOCK_GRAIN_NANOS;

	private static final long GRANT_MS = 150;

	private static final long LIVENESS_MS = 5_000;

	private static final long QUEUE_TTL_MS = 10_000;

	private static ScriptRedis connection;

	private static LockScripts scripts;

	private static StringRedisTemplate template;

	private static String prefix;

	private static int tries;

	@BeforeContainer
	static void connectForProperties() {
		open();
	}

	@AfterContainer
	static void closeForProperties() {
		shut();
	}

	@BeforeEach
	void connect() {
		open();
	}

	@AfterEach
	void close() {
		shut();
	}

	private static void open() {
		connection = new ScriptRedis();
		scripts = connection.scripts();
		template = connection.template();
		prefix = connection.prefix();
	}

	private static void shut() {
		connection.close();
	}

	@Property(afterFailure = AfterFailureMode.SAMPLE_FIRST)
	void permitInvariantsHoldUnderRandomSteps(@ForAll("steps") ActionChain<Simulation> chain) throws Exception {
		chain.withInvariant("limit, queue and beliefs", Simulation::check).run().leaveAll();
	}

	@Provide
	Arbitrary<ActionChain<Simulation>> steps() {
		Arbitrary<Long> seeds = Arbitraries.longs();
		Action.Independent<Simulation> act = () -> Combinators.combine(Arbitraries.integers().between(0, 6), seeds)
			.as((client, seed) -> Transformer.mutate("c" + client + " acts (" + seed + ")",
					(simulation) -> simulation.clientActs(client, seed)));
		Action.Independent<Simulation> stranger = () -> seeds.map((seed) -> Transformer.mutate(
				"a release by a non-owner (" + seed + ")", (simulation) -> simulation.releaseByNonOwner(seed)));
		Action.Independent<Simulation> pause = () -> Arbitraries.integers().between(0, (int) LEASE_MS / 2)
			.map((millis) -> Transformer.mutate("pause " + millis + " ms", (simulation) -> simulation.pause(millis)));
		Action.Independent<Simulation> loseData = () -> Arbitraries
			.just(Transformer.mutate("Redis loses its data", Simulation::loseData));
		return ActionChain.<Simulation>startWith(() -> new Simulation(prefix + (++tries) + ":"))
			.withAction(86, act)
			.withAction(8, stranger)
			.withAction(6, pause)
			.withAction(1, loseData)
			.withMaxTransformations(Integer.getInteger("lockstep.protocol.steps", 150));
	}

	/** The checks above can fail: a holder written past the limit is seen at once. */
	@Test
	void theLimitCheckSeesAHolderTooMany() throws Exception {
		Simulation simulation = new Simulation(prefix + "control:");
		long far = System.currentTimeMillis() + 60_000;
		for (int i = 0; i < 4; i++) {
			template.opsForZSet().add(simulation.key.lock(), "intruder:" + i + ":" + (i + 1), far);
		}
		org.assertj.core.api.Assertions.assertThatThrownBy(simulation::checkLimit).isInstanceOf(AssertionError.class)
			.hasMessageContaining("holders");
	}

	static final class Simulation {

		private final Random random;

		private final LockKeys key;

		private final List<Client> clients = new ArrayList<>();

		private final Map<String, Integer> permitsByOwner = new HashMap<>();

		private long highestToken;

		/**
		 * Tokens made in this step that noteGrants does not see as grants (direct acquisitions, grants
		 * heard late), checked with its grants.
		 */
		private final List<Long> directTokens = new ArrayList<>();

		private int sequence;

		private int enqueued;

		Simulation(String prefix) {
			this.random = new Random(0);
			this.key = LockKeys.ofPermits(prefix, "range", 3);
			for (int i = 0; i < 7; i++) {
				this.clients.add(new Client("c" + i, (i < 4) ? 3 : 2));
			}
		}

		void clientActs(int client, long seed) {
			step(seed, () -> this.clients.get(client).act());
		}

		void releaseByNonOwner(long seed) {
			step(seed, this::releaseByNonOwner);
		}

		void pause(int millis) {
			step(0, () -> Thread.sleep(millis));
		}

		/** As a restart without persistence: every key gone; holders believe on until a renewal fails. */
		void loseData() {
			step(0, () -> {
				template.delete(List.of(this.key.lock(), this.key.queue(), this.key.alive(), this.key.counter()));
				for (Client client : this.clients) {
					client.takenBeforeALoss = client.held;
				}
			});
		}

		void check() {
			checkLimit();
			checkQueue();
			checkBeliefs();
		}

		private void step(long seed, Step step) {
			this.random.setSeed(seed);
			try {
				step.run();
				noteGrants();
			}
			catch (AssertionError ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new AssertionError(ex);
			}
		}

		/** Everyone leaves: a waiter that gives up may pass a permit to the next, who leaves in turn. */
		void leaveAll() throws Exception {
			while (this.clients.stream().anyMatch((client) -> client.held || client.entry != null || client.replyLost)) {
				for (Client client : this.clients) {
					client.leave();
				}
				noteGrants();
			}
			// grants that stalled waiters never confirmed run out by themselves
			Thread.sleep(LEASE_MS + 50);
			assertThat(liveHolders()).as("holders once everyone left").isEmpty();
			assertThat(template.opsForList().size(this.key.queue())).as("queue once everyone left").isZero();
		}

		private interface Step {

			void run() throws Exception;

		}

		/** Queued clients that Redis made holders, in token order: they must be served in queue order. */
		private void noteGrants() throws Exception {
			List<Client> granted = new ArrayList<>();
			Map<String, Long> tokens = new HashMap<>();
			for (TypedTuple<String> holder : liveHolders()) {
				String value = holder.getValue();
				int last = value.lastIndexOf(':');
				tokens.put(value.substring(0, last), Long.parseLong(value.substring(last + 1)));
			}
			List<String> queue = template.opsForList().range(this.key.queue(), 0, -1);
			for (Client client : this.clients) {
				if (client.entry != null && !tokens.containsKey(client.owner) && !queue.contains(client.entry)) {
					// dropped from the queue (its liveness lapsed): the engine's heartbeat has it queue again
					client.entry = null;
					client.owner = null;
				}
				if (client.entry != null && tokens.containsKey(client.owner)) {
					client.token = tokens.get(client.owner);
					granted.add(client);
				}
			}
			granted.sort((a, b) -> Long.compare(a.token, b.token));
			int lowestStillQueued = Integer.MAX_VALUE;
			for (Client client : this.clients) {
				if (client.entry != null && !tokens.containsKey(client.owner)) {
					lowestStillQueued = Math.min(lowestStillQueued, client.queuedAs);
				}
			}
			List<Long> created = new ArrayList<>(this.directTokens);
			this.directTokens.clear();
			granted.forEach((client) -> created.add(client.token));
			// one step's tokens, in the order Redis made them (a direct acquisition may follow grants in one script)
			created.stream().sorted().forEach(this::newToken);
			int previous = -1;
			for (Client client : granted) {
				assertThat(client.queuedAs).as("FIFO: %s granted out of queue order", client.owner).isGreaterThan(previous)
					.isLessThan(lowestStillQueued);
				previous = client.queuedAs;
				client.entry = null;
				// the engine confirms a hand-over before it counts as held
				long sent = System.nanoTime();
				if (this.random.nextInt(4) > 0 && scripts().confirm(this.key, client.owner, client.token, LEASE_MS)
					.get(10, TimeUnit.SECONDS) == 1) {
					client.held = true;
					client.takenBeforeALoss = false;
					client.heldUntilNanos = sent + BELIEVED_LEASE_NANOS;
				}
				else {
					// the waiter stalled: its grant runs out by itself
					client.owner = null;
				}
			}
		}

		/**
		 * No client believes it holds a permit (by its own clock: its lease counted from when it sent
		 * the call that gave it) that Redis no longer counts as held.
		 */
		void checkBeliefs() {
			Set<String> live = new HashSet<>();
			liveHolders().forEach((holder) -> live.add(holder.getValue()));
			for (Client client : this.clients) {
				if (client.held && !client.takenBeforeALoss && System.nanoTime() - client.heldUntilNanos < 0
						&& !live.contains(client.owner + ":" + client.token)) {
					throw new AssertionError(client.owner + " believes it holds a permit (token " + client.token + ", "
							+ TimeUnit.NANOSECONDS.toMillis(client.heldUntilNanos - System.nanoTime())
							+ " ms left by its clock) that Redis no longer counts: " + live);
				}
			}
		}

		private void newToken(long token) {
			assertThat(token).as("token").isGreaterThan(this.highestToken);
			this.highestToken = token;
		}

		void checkLimit() {
			List<TypedTuple<String>> live = liveHolders();
			int largest = 0;
			for (TypedTuple<String> holder : live) {
				String value = holder.getValue();
				largest = Math.max(largest, this.permitsByOwner.getOrDefault(value.substring(0, value.lastIndexOf(':')), 3));
			}
			assertThat(live.size()).as("unexpired holders %s", live).isLessThanOrEqualTo(largest).isLessThanOrEqualTo(3);
		}

		private void checkQueue() {
			List<String> queue = template.opsForList().range(this.key.queue(), 0, -1);
			assertThat(queue).as("queue").doesNotHaveDuplicates();
		}

		/** Holders whose lease has not ended by Redis's clock (expired ones stay until a script purges them). */
		private List<TypedTuple<String>> liveHolders() {
			long now = template
				.execute((org.springframework.data.redis.core.RedisCallback<Long>) (connection) -> connection.serverCommands()
					.time(TimeUnit.MILLISECONDS));
			Set<TypedTuple<String>> all = template.opsForZSet()
				.rangeWithScores(this.key.lock(), 0, -1);
			return (all != null) ? all.stream().filter((holder) -> holder.getScore() > now).toList() : Collections.emptyList();
		}

		/** A release naming an owner that does not hold (a stale token, an owner that never held) changes no live holder. */
		private void releaseByNonOwner() throws Exception {
			Client victim = this.clients.get(this.random.nextInt(this.clients.size()));
			String owner = (victim.owner != null) ? victim.owner : "stranger:" + this.random.nextInt(100);
			long wrongToken = (victim.held ? victim.token : this.highestToken) + 1 + this.random.nextInt(3);
			Map<String, Double> before = scores(liveHolders(), LEASE_MS / 3);
			long released = scripts().release(this.key, owner, wrongToken).get(10, TimeUnit.SECONDS);
			assertThat(released).as("release by a non-owner").isZero();
			Map<String, Double> after = scores(liveHolders(), 0);
			for (Map.Entry<String, Double> holder : before.entrySet()) {
				assertThat(after.get(holder.getKey())).as("%s after a release by a non-owner", holder.getKey())
					.isEqualTo(holder.getValue());
			}
		}

		/** Live holders whose lease has at least {@code marginMs} left, as member to lease end. */
		private Map<String, Double> scores(List<TypedTuple<String>> holders, long marginMs) {
			Map<String, Double> scores = new HashMap<>();
			double least = holders.stream().mapToDouble(TypedTuple::getScore).min().orElse(0) + marginMs;
			for (TypedTuple<String> holder : holders) {
				if (marginMs == 0 || holder.getScore() >= least) {
					scores.put(holder.getValue(), holder.getScore());
				}
			}
			return scores;
		}

		final class Client {

			private final String instance;

			private final int permits;

			private String owner;

			private String entry;

			private int queuedAs;

			private long token;

			private boolean held;

			/** Until when this client believes it holds its permit, by its own clock. */
			private long heldUntilNanos;

			/** Held since before Redis last lost its data: believes until its next renewal fails. */
			private boolean takenBeforeALoss;

			/**
			 * Whether the reply of its last acquire was lost: it hears only that of the call sent again
			 * after a reconnect (replayHeard), and counts from when it sent the first.
			 */
			private boolean replyLost;

			private long replyLostSentNanos;

			private int replyLostQueuedAs;

			private String replyLostEntry;

			Client(String instance, int permits) {
				this.instance = instance;
				this.permits = permits;
			}

			void act() throws Exception {
				int dice = Simulation.this.random.nextInt(10);
				if (this.replyLost) {
					replayHeard();
				}
				else if (this.held) {
					if (dice < 6) {
						release();
					}
					else if (dice < 8) {
						renew();
					}
					// else: stalls, its lease may run out
				}
				else if (this.entry != null) {
					if (dice < 3) {
						cancel();
					}
					else if (dice < 6) {
						heartbeat();
					}
				}
				else {
					acquire(dice < 2);
				}
			}

			private void acquire(boolean single) throws Exception {
				this.owner = this.instance + ":" + (++Simulation.this.sequence);
				Simulation.this.permitsByOwner.put(this.owner, this.permits);
				LockKeys keys = LockKeys.ofPermits(this.keyPrefix(), "range", this.permits);
				String entry = single ? "" : this.owner + ":" + GRANT_MS + ":" + this.permits;
				long sent = System.nanoTime();
				long token = Simulation.this.scripts().acquire(keys, this.owner, LEASE_MS, entry, QUEUE_TTL_MS)
					.get(10, TimeUnit.SECONDS);
				if (!single && Simulation.this.random.nextInt(5) == 0) {
					// the reply is lost: the client hears only that of the call sent again, later
					if (token > 0) {
						Simulation.this.directTokens.add(token);
					}
					this.replyLost = true;
					this.replyLostSentNanos = sent;
					this.replyLostQueuedAs = ++Simulation.this.enqueued;
					this.replyLostEntry = entry;
					return;
				}
				if (Simulation.this.random.nextInt(3) == 0) {
					// replayed after a reconnect: the same answer, and no second queue entry
					long replayed = Simulation.this.scripts().acquire(keys, this.owner, LEASE_MS, entry, QUEUE_TTL_MS)
						.get(10, TimeUnit.SECONDS);
					if (token == 0 && replayed > 0 && !single) {
						// a lease ran out between the two and the queue's head, this entry, was granted
						this.entry = entry;
						this.queuedAs = ++Simulation.this.enqueued;
						return;
					}
					if (token == 0 && replayed > 0) {
						// a lease ran out between the two (a slow step: a loaded machine) and the single
						// attempt sent again found a permit free: the client hears that reply, and holds
						token = replayed;
					}
					else {
						assertThat(replayed).as("replayed acquire").isEqualTo(token);
					}
				}
				if (token > 0) {
					Simulation.this.directTokens.add(token);
					this.token = token;
					this.held = true;
					this.takenBeforeALoss = false;
					this.heldUntilNanos = sent + BELIEVED_LEASE_NANOS;
					checkLimit();
				}
				else if (!single) {
					this.entry = entry;
					this.queuedAs = ++Simulation.this.enqueued;
				}
				else {
					this.owner = null;
				}
			}

			/**
			 * A reconnect sends the acquire whose reply was lost again, and the client hears this reply,
			 * counting its lease from when it sent the call first, as the engine does (one command
			 * object): it may find the client granted a permit since.
			 */
			private void replayHeard() throws Exception {
				this.replyLost = false;
				LockKeys keys = LockKeys.ofPermits(this.keyPrefix(), "range", this.permits);
				// an entry dropped meanwhile (nobody heartbeated it) is queued again at the tail
				boolean stillQueued = template.opsForList()
					.range(Simulation.this.key.queue(), 0, -1).contains(this.replyLostEntry);
				long token = Simulation.this.scripts().acquire(keys, this.owner, LEASE_MS, this.replyLostEntry, QUEUE_TTL_MS)
					.get(10, TimeUnit.SECONDS);
				if (token > 0) {
					newTokenIfUnseen(token);
					this.token = token;
					this.held = true;
					this.takenBeforeALoss = false;
					this.heldUntilNanos = this.replyLostSentNanos + BELIEVED_LEASE_NANOS;
					checkLimit();
				}
				else {
					this.entry = this.replyLostEntry;
					this.queuedAs = stillQueued ? this.replyLostQueuedAs : ++Simulation.this.enqueued;
				}
			}

			private void release() throws Exception {
				Simulation.this.scripts().release(Simulation.this.key, this.owner, this.token).get(10, TimeUnit.SECONDS);
				this.held = false;
				this.owner = null;
			}

			private void renew() throws Exception {
				if (Simulation.this.scripts().confirm(Simulation.this.key, this.owner, this.token, LEASE_MS)
					.get(10, TimeUnit.SECONDS) == 0) {
					// its lease ran out while it stalled: it knows it lost the permit
					this.held = false;
					this.owner = null;
				}
			}

			private void cancel() throws Exception {
				long token = Simulation.this.scripts().cancel(Simulation.this.key, this.owner, this.entry)
					.get(10, TimeUnit.SECONDS);
				this.entry = null;
				if (token > 0) {
					// granted just before it gave up: released at once, as the engine's abandon does
					newTokenIfUnseen(token);
					Simulation.this.scripts().release(Simulation.this.key, this.owner, token).get(10, TimeUnit.SECONDS);
				}
				this.owner = null;
			}

			/**
			 * A token this client hears late (a grant found by a cancel, or by a replayed acquire): if no
			 * earlier step noted it, it is checked with this step's other new tokens, in the order Redis
			 * made them; checked at once, it would run ahead of a token made earlier in this step.
			 */
			private void newTokenIfUnseen(long token) {
				if (token > Simulation.this.highestToken) {
					Simulation.this.directTokens.add(token);
				}
			}

			private void heartbeat() throws Exception {
				List<Object> reply = Simulation.this.scripts()
					.heartbeat(Simulation.this.key, LIVENESS_MS, QUEUE_TTL_MS, List.of(this.entry))
					.get(10, TimeUnit.SECONDS);
				assertThat(reply.size()).as("heartbeat reply %s", reply).isIn(2, 4);
			}

			void leave() throws Exception {
				if (this.replyLost) {
					replayHeard();
				}
				if (this.held) {
					release();
				}
				else if (this.entry != null) {
					cancel();
				}
			}

			private String keyPrefix() {
				String lock = Simulation.this.key.lock();
				return lock.substring(0, lock.indexOf(LockKeys.PERMITS));
			}

		}

		LockScripts scripts() {
			return PermitProtocolPropertyTests.scripts;
		}

	}

}
