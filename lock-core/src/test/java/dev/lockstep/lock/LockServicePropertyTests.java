package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockException;
import dev.lockstep.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock service as a whole (engine, heartbeats, watchdog, wake-ups) against a real Redis, as a
 * jqwik stateful property: two services take and release locks and permits, single attempts and
 * waits, while Redis loses its data, a service is stopped and started again, a heartbeat is sent
 * at the moment of a single attempt, and time passes for heartbeats to come in between. jqwik searches action sequences and shrinks a failing one to
 * the shortest it can; a failure prints its seed, and jqwik's database (under target) tries the
 * failing sample first on the next run.
 *
 * <p>After every action: every handle taken since Redis last lost its data that says it is held is
 * the one Redis holds; no fencing token is given twice for one key; no more permits are held than
 * allowed. At the end: every wait ended within its wait time, and once all is closed Redis holds
 * nothing. A handle taken before a loss may go on believing until its next renewal (the documented
 * limit); what protects the resource then is that every later token is higher, which the token
 * check covers.
 *
 * <p>CI runs few tries (lock-core's {@code jqwik.tries.default}); {@code -Djqwik.tries.default=...} and
 * {@code -Dlockstep.protocol.steps=...} run more and longer ones, as the soak profile does.
 */
class LockServicePropertyTests {

	private static final List<String> LOCK_KEYS = List.of("a", "b");

	private static final String PERMIT_KEY = "p";

	private static final int PERMITS = 2;

	private static final Duration WAIT = Duration.ofSeconds(1);

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate template;

	@BeforeContainer
	static void connect() {
		factory = RedisConnections.standalone();
		template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
	}

	@AfterContainer
	static void disconnect() {
		factory.destroy();
	}

	@Property(afterFailure = net.jqwik.api.AfterFailureMode.SAMPLE_FIRST)
	void everyHandleThatSaysHeldIsRedisHolderAndNoTokenIsGivenTwice(@ForAll("chains") ActionChain<World> chain)
			throws Exception {
		try {
			chain.withInvariant("held handles are Redis's holders", World::checkHeldHandlesAreRedisHolders).run();
		}
		finally {
			World.closeAll();
		}
	}

	/**
	 * The same on one lock key, with the steps that matter when Redis loses a key that a waiter
	 * waits on: fewer choices, so that short chains meet such a moment often.
	 */
	@Property(afterFailure = net.jqwik.api.AfterFailureMode.SAMPLE_FIRST)
	void onOneKeyEveryHandleThatSaysHeldIsRedisHolder(@ForAll("chainsOnOneKey") ActionChain<World> chain)
			throws Exception {
		everyHandleThatSaysHeldIsRedisHolderAndNoTokenIsGivenTwice(chain);
	}

	@Provide
	Arbitrary<ActionChain<World>> chainsOnOneKey() {
		Arbitrary<String> key = Arbitraries.just("a");
		return ActionChain.<World>startWith(World::new)
			.withAction(2, new SingleAttempt(key))
			.withAction(3, new SingleAttemptBesideAHeartbeat(key))
			.withAction(3, new Wait(key))
			.withAction(2, new Release())
			.withAction(2, new Pause())
			.withAction(2, new LoseData())
			.withMaxTransformations(Integer.getInteger("lockstep.protocol.steps", 12));
	}

	@Provide
	Arbitrary<ActionChain<World>> chains() {
		return ActionChain.<World>startWith(World::new)
			.withAction(3, new SingleAttempt(key()))
			.withAction(2, new SingleAttemptBesideAHeartbeat(key()))
			.withAction(3, new Wait(key()))
			.withAction(3, new Release())
			.withAction(2, new Pause())
			.withAction(1, new LoseData())
			.withAction(1, new StopAndStart())
			.withMaxTransformations(Integer.getInteger("lockstep.protocol.steps", 25));
	}

	/** The services, handles and waits of one try. */
	static final class World {

		/** The worlds a try made (jqwik makes the initial state when the chain runs), to close after it. */
		private static final List<World> opened = new ArrayList<>();

		private final String prefix = RedisConnections.uniquePrefix();

		private final List<RedisLockService> services = new ArrayList<>();

		private final ExecutorService threads = Executors.newCachedThreadPool();

		private final List<Holding> holdings = new ArrayList<>();

		private final List<Waiting> waits = new ArrayList<>();

		private final Map<String, Set<Long>> tokensGiven = new HashMap<>();

		/** Busy threads so that a woken thread waits for a core, as on a loaded machine. */
		private final AtomicBoolean spinning = new AtomicBoolean(true);

		/** Redis lost its data this many times; a holding remembers the count it was taken at. */
		private int losses;

		World() {
			opened.add(this);
			for (int i = 0; i < 2; i++) {
				this.services.add(RedisConnections.lockService(factory, this.prefix, (service) -> {
					service.setHeartbeatInterval(Duration.ofMillis(10));
					service.setLeaseTime(Duration.ofSeconds(2));
					service.setShutdownTimeout(Duration.ofMillis(50));
				}));
			}
			for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
				this.threads.submit(() -> {
					long spins = 0;
					while (this.spinning.get()) {
						spins++;
					}
					return spins;
				});
			}
		}

		/** The end of a try: closes every world it made, checking each; the first failure is thrown. */
		static void closeAll() throws Exception {
			Exception failure = null;
			AssertionError broken = null;
			for (World world : List.copyOf(opened)) {
				opened.remove(world);
				try {
					world.close();
				}
				catch (AssertionError ex) {
					broken = (broken != null) ? broken : ex;
				}
				catch (Exception ex) {
					failure = (failure != null) ? failure : ex;
				}
			}
			if (broken != null) {
				throw broken;
			}
			if (failure != null) {
				throw failure;
			}
		}

		@Override
		public String toString() {
			return "World" + this.holdings;
		}

		/**
		 * A call on a thread of its own: a thread that holds a lock would enter it again (the lock is
		 * reentrant), and each call here is a caller of its own.
		 */
		Future<LockHandle> caller(java.util.concurrent.Callable<LockHandle> call) {
			java.util.concurrent.FutureTask<LockHandle> task = new java.util.concurrent.FutureTask<>(call);
			Thread thread = new Thread(task, "caller");
			thread.setDaemon(true);
			thread.start();
			return task;
		}

		RedisLockService service(int index) {
			return this.services.get(index);
		}

		void took(int service, String key, LockHandle handle) {
			took(service, key, handle, this.losses);
		}

		void took(int service, String key, LockHandle handle, int lossesBefore) {
			if (!this.tokensGiven.computeIfAbsent(key, (k) -> new HashSet<>()).add(handle.fencingToken())) {
				throw new AssertionError("fencing token " + handle.fencingToken() + " of '" + key + "' given twice");
			}
			this.holdings.add(new Holding(service, key, handle, lossesBefore));
		}

		/** Waits that ended: their handles join the holdings. */
		void harvest() throws Exception {
			for (Waiting waiting : List.copyOf(this.waits)) {
				if (waiting.result.isDone()) {
					this.waits.remove(waiting);
					LockHandle handle = handleOf(waiting.result);
					if (handle != null) {
						// taken at some time during the wait: before a loss the wait saw, as far as the checks know
						took(waiting.service, waiting.key, handle, waiting.lossesBefore);
					}
				}
			}
		}

		void checkHeldHandlesAreRedisHolders() {
			try {
				harvest();
			}
			catch (Exception ex) {
				throw new AssertionError(ex);
			}
			int permitsHeld = 0;
			for (Holding holding : this.holdings) {
				if (holding.lossesBefore != this.losses) {
					continue;
				}
				// Redis read first: a handle that says held after the read was held at the read
				boolean redisHolds = redisHolds(holding);
				if (holding.handle.isHeld()) {
					if (!redisHolds) {
						throw new AssertionError(holding + " says it is held, but Redis holds " + holderOf(holding.key));
					}
					if (holding.key.equals(PERMIT_KEY)) {
						permitsHeld++;
					}
				}
			}
			assertThat(permitsHeld).as("permits held at once").isLessThanOrEqualTo(PERMITS);
		}

		private boolean redisHolds(Holding holding) {
			String suffix = ":" + holding.handle.fencingToken();
			if (holding.key.equals(PERMIT_KEY)) {
				Set<String> members = template.opsForZSet().range(this.prefix + LockKeys.PERMITS + "{p}", 0, -1);
				return members != null && members.stream().anyMatch((member) -> member.endsWith(suffix));
			}
			String value = template.opsForValue().get(this.prefix + "{" + holding.key + "}");
			return value != null && value.endsWith(suffix);
		}

		private Object holderOf(String key) {
			if (key.equals(PERMIT_KEY)) {
				return template.opsForZSet().range(this.prefix + LockKeys.PERMITS + "{p}", 0, -1);
			}
			return template.opsForValue().get(this.prefix + "{" + key + "}");
		}

		/** The end of a try: every wait ends in time, and once all is closed Redis holds nothing. */
		void close() throws Exception {
			this.spinning.set(false);
			try {
				for (Waiting waiting : this.waits) {
					LockHandle handle = handleOf(waiting.result, WAIT.plusSeconds(10));
					if (handle != null) {
						handle.close();
					}
				}
				this.holdings.forEach((holding) -> holding.handle.close());
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				while (!heldKeys().isEmpty() && System.nanoTime() - deadline < 0) {
					Thread.sleep(20);
				}
				if (!heldKeys().isEmpty()) {
					throw new AssertionError("locks left in Redis after everything was closed: "
							+ heldKeys().stream().map((key) -> key + "=" + template.opsForValue().get(key)).toList()
							+ "; held by the services: " + this.services.stream().map(RedisLockService::heldLocks).toList());
				}
			}
			finally {
				this.services.forEach(RedisLockService::stop);
				this.threads.shutdownNow();
				List<String> keys = RedisConnections.keys(template, this.prefix);
				if (!keys.isEmpty()) {
					template.delete(keys);
				}
			}
		}

		private List<String> heldKeys() {
			return RedisConnections.keys(template, this.prefix)
				.stream()
				.filter((key) -> !key.endsWith(":token") && !key.endsWith(":queue") && !key.endsWith(":alive"))
				.toList();
		}

		private static LockHandle handleOf(Future<LockHandle> result) throws Exception {
			return handleOf(result, Duration.ZERO);
		}

		static LockHandle handleOf(Future<LockHandle> result, Duration wait) throws Exception {
			try {
				return result.get(Math.max(1, wait.toMillis()), TimeUnit.MILLISECONDS);
			}
			catch (java.util.concurrent.ExecutionException ex) {
				if (ex.getCause() instanceof LockException || ex.getCause() instanceof IllegalStateException) {
					// not acquired, or the service stopped under the wait: no handle
					return null;
				}
				throw ex;
			}
			catch (java.util.concurrent.TimeoutException ex) {
				throw new AssertionError("a wait of " + WAIT.toMillis() + " ms had not ended " + wait.toMillis()
						+ " ms after the chain");
			}
		}

	}

	record Holding(int service, String key, LockHandle handle, int lossesBefore) {
	}

	record Waiting(int service, String key, Future<LockHandle> result, int lossesBefore) {
	}

	private static Arbitrary<Integer> service() {
		return Arbitraries.integers().between(0, 1);
	}

	private static Arbitrary<String> key() {
		return Arbitraries.of("a", "b", PERMIT_KEY);
	}

	private static LockHandle take(RedisLockService service, String key, Duration wait) {
		return key.equals(PERMIT_KEY) ? service.acquirePermit(key, PERMITS, wait) : service.acquire(key, wait);
	}

	/** One call that does not wait: the lock or permit at once, or nothing. */
	static final class SingleAttempt implements Action.Independent<World> {

		private final Arbitrary<String> keys;

		SingleAttempt(Arbitrary<String> keys) {
			this.keys = keys;
		}

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return net.jqwik.api.Combinators.combine(service(), this.keys)
				.as((service, key) -> Transformer.mutate("single attempt on '" + key + "' by service " + service, (world) -> {
					try {
						LockHandle handle = World.handleOf(world.caller(() -> take(world.service(service), key, Duration.ZERO)),
								Duration.ofSeconds(15));
						if (handle != null) {
							world.took(service, key, handle);
						}
					}
					catch (Exception ex) {
						throw new AssertionError(ex);
					}
				}));
		}

	}

	/**
	 * A single attempt with a heartbeat of its service sent at the same moment, so that the
	 * heartbeat's reply may come right after the attempt's, before the attempt's thread records
	 * the lock it took.
	 */
	static final class SingleAttemptBesideAHeartbeat implements Action.Independent<World> {

		private final Arbitrary<String> keys;

		SingleAttemptBesideAHeartbeat(Arbitrary<String> keys) {
			this.keys = keys;
		}

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return net.jqwik.api.Combinators.combine(service(), this.keys)
				.as((service, key) -> Transformer.mutate("single attempt on '" + key + "' by service " + service
						+ " beside a heartbeat", (world) -> {
					try {
						RedisLockService lockService = world.service(service);
						Future<LockHandle> attempt = world.caller(() -> take(lockService, key, Duration.ZERO));
						lockService.heartbeatNow();
						LockHandle handle = World.handleOf(attempt, Duration.ofSeconds(15));
						if (handle != null) {
							world.took(service, key, handle);
						}
					}
					catch (Exception ex) {
						throw new AssertionError(ex);
					}
				}));
		}

	}

	/** A call that waits, on a thread of its own. */
	static final class Wait implements Action.Independent<World> {

		private final Arbitrary<String> keys;

		Wait(Arbitrary<String> keys) {
			this.keys = keys;
		}

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return net.jqwik.api.Combinators.combine(service(), this.keys)
				.as((service, key) -> Transformer.mutate("wait on '" + key + "' by service " + service,
						(world) -> world.waits.add(new Waiting(service, key,
								world.caller(() -> take(world.service(service), key, WAIT)), world.losses))));
		}

	}

	/** A holder closes its handle. */
	static final class Release implements Action.Dependent<World> {

		@Override
		public boolean precondition(World world) {
			return !world.holdings.isEmpty();
		}

		@Override
		public Arbitrary<Transformer<World>> transformer(World world) {
			return Arbitraries.integers().between(0, world.holdings.size() - 1).map((index) -> {
				Holding holding = world.holdings.get(index);
				return Transformer.mutate("release of '" + holding.key() + "' (token " + holding.handle().fencingToken() + ")",
						(state) -> {
							holding.handle().close();
							state.holdings.remove(holding);
						});
			});
		}

	}

	/** Time passes: heartbeats, renewals and hand-overs happen in between. */
	static final class Pause implements Action.Independent<World> {

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return Arbitraries.integers().between(5, 60).map((millis) -> Transformer.mutate("pause " + millis + " ms",
					(world) -> {
						try {
							Thread.sleep(millis);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					}));
		}

	}

	/** Redis loses its data, as a restart without persistence or a failover to a replica that lacked it. */
	static final class LoseData implements Action.Independent<World> {

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return Arbitraries.just(Transformer.mutate("Redis loses its data", (world) -> {
				List<String> keys = RedisConnections.keys(template, world.prefix);
				if (!keys.isEmpty()) {
					template.delete(keys);
				}
				world.losses++;
			}));
		}

	}

	/** A service is stopped and started again, as a context stopped and started or a checkpoint restored. */
	static final class StopAndStart implements Action.Independent<World> {

		@Override
		public Arbitrary<Transformer<World>> transformer() {
			return service().map((service) -> Transformer.mutate("service " + service + " stopped and started", (world) -> {
				world.service(service).stop();
				world.service(service).start();
			}));
		}

	}

}
