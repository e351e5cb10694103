package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The lock scripts as a protocol, driven directly against a real Redis by simulated clients that
 * follow the engine's rules: queue with an owner id of their own per queueing, confirm a hand-over
 * (owner and token checked) before counting it as held, and count a lease from when the call that
 * set it was sent. The world around them misbehaves at random: wake-ups are lost, duplicated and
 * delivered late, clients pause past their leases, commands are replayed, waiters give up, leases
 * run out for real on Redis's clock.
 *
 * <p>Invariant 1, after every step: no client whose own view says it holds a key while Redis says
 * someone else does, unless Redis lost its data since the client took it (then the client believes
 * until its next renewal fails: the documented limit, which fencing covers). Invariant 2: each key's
 * tokens rise, across data losses too. Invariant 3: no entry queued twice. At the end: every
 * waiter is served or has given up, and Redis holds nothing.
 *
 * <p>A jqwik stateful property: each action is one step (a client acts, a wake-up is delivered,
 * lost or duplicated, time passes, Redis loses its data), and a failing chain is shrunk to the
 * shortest that still fails. The seed jqwik prints, given to {@code @Property(seed = ...)}, replays
 * the chain's choices but not its course: leases, grant leases, liveness deadlines and queue
 * lifetimes run out in real time on Redis's clock, so whether a lease has run out when a step comes
 * depends on how fast the steps before it ran (a seed run twice, unloaded, parted within its first
 * ten steps). A replay would need a time of the run's own that real time follows with room to
 * spare: time advancing in ticks the seed chooses, every lease ending mid-tick, and each tick's
 * steps done well within half a tick. CI runs lock-core's {@code jqwik.tries.default} chains of
 * {@code lockstep.protocol.steps} (default 150) steps; the soak profile runs more and longer.
 */
class LockProtocolPropertyTests {

	private static final long LEASE_MS = 400;

	/** How long a client believes a confirmed lease lasts, as the engine does (LockOwnership#confirm). */
	private static final long BELIEVED_LEASE_NANOS = TimeUnit.MILLISECONDS.toNanos(LEASE_MS)
			- LockOwnership.REDIS_CLOCK_GRAIN_NANOS;

	private static final long LIVENESS_MS = 150;

	private static final long QUEUE_TTL_MS = 2_000;

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
	void noClientBelievesItHoldsAKeyThatRedisGaveToAnotherAndEveryWaiterIsServed(
			@ForAll("steps") ActionChain<Simulation> chain) throws Exception {
		chain.withInvariant("no client holds what Redis gave another", Simulation::checkNoClientHoldsWhatRedisGaveAnother)
			.run()
			.drain();
	}

	@Provide
	Arbitrary<ActionChain<Simulation>> steps() {
		Arbitrary<Long> seeds = Arbitraries.longs();
		Action.Independent<Simulation> act = () -> Combinators.combine(Arbitraries.integers().between(0, 4), seeds)
			.as((client, seed) -> Transformer.mutate("client" + client + " acts (" + seed + ")",
					(simulation) -> simulation.clientActs(client, seed)));
		Action.Independent<Simulation> deliver = () -> seeds.map((seed) -> Transformer.mutate(
				"a wake-up delivered, duplicated or lost (" + seed + ")", (simulation) -> simulation.deliverWakeUp(seed)));
		Action.Independent<Simulation> pause = () -> Arbitraries.integers().between(0, (int) LEASE_MS / 2)
			.map((millis) -> Transformer.mutate("pause " + millis + " ms", (simulation) -> simulation.pause(millis)));
		Action.Independent<Simulation> loseData = () -> Arbitraries
			.just(Transformer.mutate("Redis loses its data", Simulation::loseData));
		return ActionChain.<Simulation>startWith(() -> new Simulation(prefix + (++tries) + ":"))
			.withAction(75, act)
			.withAction(17, deliver)
			.withAction(8, pause)
			.withAction(1, loseData)
			.withMaxTransformations(Integer.getInteger("lockstep.protocol.steps", 150));
	}

	/**
	 * The control, step by step: a wake-up that arrives after its grant ran out and the lock went to
	 * the next waiter. A client counting the lease from its wake-up (the engine's old rule) would now
	 * believe it holds what Redis gave another, which is what the check above looks for; the
	 * confirmation refuses it.
	 */
	@Test
	void aWakeUpThatArrivesAfterItsGrantRanOutIsRefusedByTheConfirmation() throws Exception {
		LockKeys key = LockKeys.of(prefix, "late");
		long holderToken = scripts.acquire(key, "h:1", LEASE_MS, "", QUEUE_TTL_MS).get(10, TimeUnit.SECONDS);
		assertThat(holderToken).isPositive();
		assertThat(scripts.acquire(key, "a:1", LEASE_MS, "a:1:" + LIVENESS_MS, QUEUE_TTL_MS).get(10, TimeUnit.SECONDS)).isZero();
		assertThat(scripts.acquire(key, "b:1", LEASE_MS, "b:1:" + LIVENESS_MS, QUEUE_TTL_MS).get(10, TimeUnit.SECONDS)).isZero();
		scripts.release(key, "h:1", holderToken).get(10, TimeUnit.SECONDS);
		String grantToA = template.opsForValue().get(key.lock());
		assertThat(grantToA).startsWith("a:1:");
		long tokenOfA = Long.parseLong(grantToA.substring(grantToA.lastIndexOf(':') + 1));

		Thread.sleep(LIVENESS_MS + 100);
		// B's heartbeat finds the lock free (A's grant ran out) and hands it to B
		scripts.heartbeat(key, LIVENESS_MS, QUEUE_TTL_MS, List.of("b:1:" + LIVENESS_MS)).get(10, TimeUnit.SECONDS);
		String grantToB = template.opsForValue().get(key.lock());
		assertThat(grantToB).startsWith("b:1:");
		long tokenOfB = Long.parseLong(grantToB.substring(grantToB.lastIndexOf(':') + 1));
		assertThat(tokenOfB).isGreaterThan(tokenOfA);

		// A's wake-up arrives now: by the old rule A would hold until now + LIVENESS_MS, beside B
		assertThat(scripts.confirm(key, "a:1", tokenOfA, LEASE_MS).get(10, TimeUnit.SECONDS)).isZero();
		assertThat(scripts.release(key, "a:1", tokenOfA).get(10, TimeUnit.SECONDS)).as("A's late release").isZero();
		assertThat(template.opsForValue().get(key.lock())).isEqualTo(grantToB);
		assertThat(scripts.confirm(key, "b:1", tokenOfB, LEASE_MS).get(10, TimeUnit.SECONDS)).isEqualTo(1);
		// a stale renewal naming B's owner with A's token changes nothing either
		assertThat(scripts.confirm(key, "b:1", tokenOfA, LEASE_MS).get(10, TimeUnit.SECONDS)).isZero();
		assertThat(scripts.release(key, "b:1", tokenOfB).get(10, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(template.hasKey(key.lock())).isFalse();
	}

	/** One chain's world: a few keys, a few clients, the wake-ups on their way. */
	static final class Simulation {

		private final Random random;

		private final List<LockKeys> keys = new ArrayList<>();

		private final List<Client> clients = new ArrayList<>();

		/** Wake-ups on their way: (client, queueing owner, token); may be lost, duplicated, late. */
		private final List<WakeUp> wakeUps = new ArrayList<>();

		private final Set<String> announced = new HashSet<>();

		private int sequence;

		/** Each tokens' highest value seen, by lock key. */
		private final Map<String, Long> highestTokens = new HashMap<>();

		Simulation(String prefix) {
			this.random = new Random(0);
			for (int i = 0; i < 2; i++) {
				this.keys.add(LockKeys.of(prefix, "key-" + i));
			}
			for (int i = 0; i < 5; i++) {
				this.clients.add(new Client("client" + i));
			}
		}

		void clientActs(int client, long seed) {
			step(seed, () -> this.clients.get(client).act());
		}

		void deliverWakeUp(long seed) {
			step(seed, this::deliverWakeUp);
		}

		void pause(int millis) {
			step(0, () -> Thread.sleep(millis));
		}

		/** As a restart without persistence: every key gone; holders believe on until a renewal fails. */
		void loseData() {
			step(0, () -> {
				for (LockKeys key : this.keys) {
					template.delete(key.all());
				}
				for (Client client : this.clients) {
					client.takenBeforeALoss = client.heldOn != null;
				}
			});
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

		/** Every grant Redis made to a queued client becomes a wake-up, as grant_next's PUBLISH does. */
		private void noteGrants() {
			for (LockKeys key : this.keys) {
				String value = template.opsForValue().get(key.lock());
				if (value == null || !this.announced.add(value)) {
					continue;
				}
				long token = Long.parseLong(value.substring(value.lastIndexOf(':') + 1));
				Long highest = this.highestTokens.put(key.key(), token);
				if (highest != null && token <= highest) {
					fail("token " + token + " of " + key.key() + " after " + highest + ": " + value);
				}
				for (Client client : this.clients) {
					if (client.queuedOn == key && value.startsWith(client.owner + ":")) {
						this.wakeUps.add(new WakeUp(client, client.owner, Long.parseLong(value.substring(value.lastIndexOf(':') + 1))));
					}
				}
			}
		}

		private void deliverWakeUp() throws Exception {
			if (this.wakeUps.isEmpty()) {
				return;
			}
			int which = this.random.nextInt(this.wakeUps.size());
			WakeUp wakeUp = this.wakeUps.get(which);
			int dice = this.random.nextInt(10);
			if (dice < 6) {
				this.wakeUps.remove(which);
				wakeUp.client.wokenUp(wakeUp);
			}
			else if (dice < 8) {
				wakeUp.client.wokenUp(wakeUp); // duplicated: it stays on its way
			}
			else {
				this.wakeUps.remove(which); // lost: the heartbeat has to find the grant
			}
		}

		/** Invariant 3: a queue never holds one entry twice, however often an acquire is replayed. */
		private void checkNoEntryIsQueuedTwice() {
			for (LockKeys key : this.keys) {
				List<String> entries = template.opsForList().range(key.queue(), 0, -1);
				if (entries != null && new HashSet<>(entries).size() != entries.size()) {
					throw new AssertionError("an entry queued twice on " + key.key() + ": " + entries);
				}
			}
		}

		void checkNoClientHoldsWhatRedisGaveAnother() {
			checkNoEntryIsQueuedTwice();
			for (Client client : this.clients) {
				if (client.believesHeld() && !client.takenBeforeALoss) {
					String value = template.opsForValue().get(client.heldOn.lock());
					if (!(client.owner + ":" + client.token).equals(value)) {
						fail(client.name + " believes it holds " + client.heldOn.key() + " (" + client.owner + ":"
								+ client.token + ", " + client.msLeft() + " ms left by its clock) but Redis says " + value);
					}
				}
			}
		}

		/** Everyone stops misbehaving: releases, heartbeats and wake-ups until every waiter is done. */
		void drain() throws Exception {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (this.clients.stream().anyMatch((client) -> client.queuedOn != null || client.heldOn != null)) {
				if (System.nanoTime() > deadline) {
					fail("waiters not served within 60s: " + this.clients);
				}
				for (Client client : this.clients) {
					client.settle();
					noteGrants();
					checkNoClientHoldsWhatRedisGaveAnother();
				}
				while (!this.wakeUps.isEmpty()) {
					WakeUp wakeUp = this.wakeUps.remove(0);
					wakeUp.client.wokenUp(wakeUp);
					checkNoClientHoldsWhatRedisGaveAnother();
				}
				Thread.sleep(20);
			}
			// Entries of queueings that are over (a replayed acquire pushed them again) are granted and
			// passed on, or expire with the queue: nothing stays past the queue's time-to-live.
			long cleanBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(QUEUE_TTL_MS + 5_000);
			while (this.keys.stream().anyMatch((key) -> Boolean.TRUE.equals(template.hasKey(key.lock()))
					|| Boolean.TRUE.equals(template.hasKey(key.queue())))) {
				if (System.nanoTime() > cleanBy) {
					fail("left in Redis after the run: " + this.keys.stream().map((key) -> key.key() + "="
							+ template.opsForValue().get(key.lock()) + " queue="
							+ template.opsForList().range(key.queue(), 0, -1)).toList());
				}
				noteGrants();
				while (!this.wakeUps.isEmpty()) {
					WakeUp wakeUp = this.wakeUps.remove(0);
					wakeUp.client.wokenUp(wakeUp);
				}
				Thread.sleep(20);
			}
		}

		private record WakeUp(Client client, String owner, long token) {
		}

		private interface Step {

			void run() throws Exception;

		}

		/** A client following the engine's rules, one call at a time. */
		final class Client {

			private final String name;

			private String owner = "";

			private String entry = "";

			private LockKeys queuedOn;

			private long queuedUntilNanos;

			private LockKeys heldOn;

			private long token;

			private long heldUntilNanos;

			/** Held since before Redis last lost its data: believes until its next renewal fails. */
			private boolean takenBeforeALoss;

			/** An earlier acquire call of this client, for replays. */
			private List<Object> lastAcquire;

			/** Where the reply of this client's last acquire was lost (null: none), to be heard from its replay. */
			private LockKeys replyLostOn;

			private long replyLostSentNanos;

			Client(String name) {
				this.name = name;
			}

			boolean believesHeld() {
				return this.heldOn != null && System.nanoTime() - this.heldUntilNanos < 0;
			}

			long msLeft() {
				return TimeUnit.NANOSECONDS.toMillis(this.heldUntilNanos - System.nanoTime());
			}

			void act() throws Exception {
				if (this.replyLostOn != null) {
					replayHeard();
					return;
				}
				int dice = Simulation.this.random.nextInt(100);
				if (dice < 10 && this.lastAcquire != null) {
					replayAcquire();
				}
				else if (this.heldOn != null) {
					if (dice < 40) {
						renew();
					}
					else if (dice < 50) {
						// a stale release of the same holding, sent twice
						release();
						release();
					}
					else {
						release();
					}
				}
				else if (this.queuedOn != null) {
					if (dice < 50) {
						heartbeat();
					}
					else if (dice < 60 || System.nanoTime() > this.queuedUntilNanos) {
						giveUp();
					}
				}
				else {
					acquire(Simulation.this.keys.get(Simulation.this.random.nextInt(Simulation.this.keys.size())),
							Simulation.this.random.nextInt(4) > 0);
				}
			}

			/** The end of the run: holders release, waiters keep heartbeating (and give up when out of time). */
			void settle() throws Exception {
				if (this.replyLostOn != null) {
					replayHeard();
				}
				if (this.heldOn != null) {
					release();
				}
				else if (this.queuedOn != null) {
					heartbeat();
					if (System.nanoTime() > this.queuedUntilNanos) {
						giveUp();
					}
				}
			}

			private void acquire(LockKeys key, boolean wait) throws Exception {
				this.owner = this.name + ":" + Integer.toString(++Simulation.this.sequence, 36);
				this.entry = wait ? this.owner + ":" + LIVENESS_MS : "";
				long sent = System.nanoTime();
				long reply = scripts.acquire(key, this.owner, LEASE_MS, this.entry, QUEUE_TTL_MS)
					.get(10, TimeUnit.SECONDS);
				this.lastAcquire = List.of(key, this.owner, this.entry);
				if (wait && Simulation.this.random.nextInt(6) == 0) {
					// the reply is lost: the client hears only that of the call sent again, later (replayHeard)
					this.replyLostOn = key;
					this.replyLostSentNanos = sent;
					return;
				}
				if (reply > 0) {
					hold(key, reply, sent);
				}
				else if (wait) {
					this.queuedOn = key;
					this.queuedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000);
				}
			}

			/** A reconnect replays an acquire call: Redis runs it once more, the client hears nothing. */
			private void replayAcquire() throws Exception {
				LockKeys key = (LockKeys) this.lastAcquire.get(0);
				scripts.acquire(key, (String) this.lastAcquire.get(1), LEASE_MS,
						(String) this.lastAcquire.get(2), QUEUE_TTL_MS).get(10, TimeUnit.SECONDS);
			}

			/**
			 * A reconnect sends the acquire whose reply was lost again, and the client hears this reply,
			 * counting from when it sent the call first, as the engine does (one command object): it
			 * may find the client handed the lock since.
			 */
			private void replayHeard() throws Exception {
				LockKeys key = this.replyLostOn;
				this.replyLostOn = null;
				long reply = scripts.acquire(key, this.owner, LEASE_MS, this.entry, QUEUE_TTL_MS)
					.get(10, TimeUnit.SECONDS);
				if (reply > 0) {
					hold(key, reply, this.replyLostSentNanos);
				}
				else {
					this.queuedOn = key;
					this.queuedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000);
				}
			}

			void wokenUp(WakeUp wakeUp) throws Exception {
				if (wakeUp.owner.equals(this.owner) && this.heldOn != null) {
					return; // a duplicate for the holding it already confirmed: ignored, like the engine does
				}
				if (this.queuedOn == null || !wakeUp.owner.equals(this.owner)) {
					// a wake-up for an earlier queueing: a grant to nobody, passed on
					scripts.release(keyOfOwner(wakeUp), wakeUp.owner, wakeUp.token).get(10, TimeUnit.SECONDS);
					return;
				}
				confirm(wakeUp.token);
			}

			private LockKeys keyOfOwner(WakeUp wakeUp) {
				for (LockKeys key : Simulation.this.keys) {
					String value = template.opsForValue().get(key.lock());
					if ((wakeUp.owner + ":" + wakeUp.token).equals(value)) {
						return key;
					}
				}
				return Simulation.this.keys.get(0);
			}

			private void confirm(long grantToken) throws Exception {
				LockKeys key = this.queuedOn;
				long sent = System.nanoTime();
				long confirmed = scripts.confirm(key, this.owner, grantToken, LEASE_MS).get(10, TimeUnit.SECONDS);
				this.queuedOn = null;
				if (confirmed == 1) {
					hold(key, grantToken, sent);
				}
				else {
					// the grant ran out before the confirmation: queue again under a new owner id
					acquire(key, true);
				}
			}

			private void heartbeat() throws Exception {
				List<Object> reply = scripts.heartbeat(this.queuedOn, LIVENESS_MS, QUEUE_TTL_MS,
						List.of(this.entry)).get(10, TimeUnit.SECONDS);
				byte[] value = (byte[]) reply.get(0);
				String holder = (value != null) ? new String(value, java.nio.charset.StandardCharsets.UTF_8) : null;
				if (holder != null && holder.startsWith(this.owner + ":")) {
					confirm(Long.parseLong(holder.substring(holder.lastIndexOf(':') + 1)));
				}
				else if (reply.size() > 2) {
					// its entry was dropped (taken for dead): queue again
					LockKeys key = this.queuedOn;
					this.queuedOn = null;
					acquire(key, true);
				}
			}

			private void giveUp() throws Exception {
				long token = scripts.cancel(this.queuedOn, this.owner, this.entry).get(10, TimeUnit.SECONDS);
				LockKeys key = this.queuedOn;
				this.queuedOn = null;
				if (token > 0) {
					// handed over just before: the engine confirms it like any hand-over, then releases
					this.queuedOn = key;
					confirm(token);
					if (this.heldOn != null) {
						release();
					}
					this.queuedOn = null;
				}
			}

			private void renew() throws Exception {
				long sent = System.nanoTime();
				long renewed = scripts.confirm(this.heldOn, this.owner, this.token, LEASE_MS)
					.get(10, TimeUnit.SECONDS);
				if (renewed == 1) {
					this.heldUntilNanos = sent + BELIEVED_LEASE_NANOS;
				}
				else {
					this.heldOn = null; // lost
				}
			}

			private void release() throws Exception {
				if (this.heldOn == null) {
					return;
				}
				scripts.release(this.heldOn, this.owner, this.token).get(10, TimeUnit.SECONDS);
				this.heldOn = null;
			}

			private void hold(LockKeys key, long grantToken, long sentNanos) {
				this.takenBeforeALoss = false;
				this.heldOn = key;
				this.token = grantToken;
				this.heldUntilNanos = sentNanos + BELIEVED_LEASE_NANOS;
			}

			@Override
			public String toString() {
				return this.name + (this.queuedOn != null ? " queued on " + this.queuedOn.key() : "")
						+ (this.heldOn != null ? " holding " + this.heldOn.key() : "");
			}

		}

	}

}
