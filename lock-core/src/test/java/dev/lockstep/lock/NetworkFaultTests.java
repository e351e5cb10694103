package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockException;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Network faults between the lock service and Redis, made by a {@link FaultProxy}: replies later
 * than the command timeout, connections cut at random points of a contended run. What must hold
 * whatever the network does: never two holders; every call returns within its wait plus a few
 * command timeouts; a caller told it failed leaves nothing held; nothing is left in Redis once
 * the run is over.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NetworkFaultTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(400);

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** The most a call may take: its wait, a few command timeouts (acquire, cancel, release), and slack for a loaded machine. */
	private static final Duration CALL_BOUND = WAIT.plus(COMMAND_TIMEOUT.multipliedBy(4)).plusSeconds(3);

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockService> services = new ArrayList<>();

	/** The test's prefix, and a connection straight to Redis (no proxy) to look at what is left there. */
	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	/** Locks reported lost (a holder whose renewals a fault kept from Redis past its lease). */
	private final AtomicInteger lost = new AtomicInteger();

	@AfterEach
	void close() {
		this.services.forEach(RedisLockService::stop);
		this.proxies.forEach(FaultProxy::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void theOverlapDetectorSeesOverlapWhenNothingLocks() throws Exception {
		// the control for the tests below: the same sections and threads, without the lock
		Sections sections = new Sections();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				workers.add(threads.submit(() -> {
					while (System.nanoTime() < until) {
						sections.run("hot");
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(10, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(sections.overlaps).hasPositiveValue();
	}

	@Test
	void repliesLaterThanTheCommandTimeoutGiveTheLockOrAnErrorNeverTwoHoldersAndLeaveNothingHeld() throws Exception {
		FaultProxy slow = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.proxies.add(slow);
		RedisLockService throughFaults = service(slow);
		RedisLockService healthy = service(null);
		Random random = new Random(7);
		Run run = new Run(List.of(throughFaults, healthy), 4, List.of("report"));
		run.start();
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < until) {
			// acquire, release, renewal and hand-off replies alike come late: above the timeout, or just under it
			long[] delays = { 0, 100, 300, 600, 900 };
			slow.latency(Duration.ofMillis(delays[random.nextInt(delays.length)] / 3),
					Duration.ofMillis(delays[random.nextInt(delays.length)]));
			Thread.sleep(200 + random.nextInt(400));
		}
		slow.heal();
		run.stop();

		assertThat(run.sections.overlaps).as("overlapping sections").hasValue(0);
		assertThat(run.failures.get(LockUnavailableException.class.getSimpleName())).as("calls that timed out: %s", run.failures)
			.isPositive();
		assertThat(run.sections.runs.get()).as("sections run").isGreaterThan(20);
		assertThat(Duration.ofNanos(run.longestCallNanos.get())).as("longest call").isLessThanOrEqualTo(CALL_BOUND);
		assertNothingLeftInRedis();
	}

	/** The same across real processes, and the soak run: {@code process.ConnectionCutProcessTests}. */
	@Test
	@Timeout(value = 900, unit = TimeUnit.SECONDS)
	void connectionsCutAtRandomPointsOfAContendedRunNeverGiveTwoHoldersAndLeaveNothingBehind() throws Exception {
		int seconds = Integer.getInteger("lockstep.faults.seconds", 15);
		int threads = Integer.getInteger("lockstep.faults.threads", 5);
		List<RedisLockService> instances = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
			this.proxies.add(proxy);
			instances.add(service(proxy));
		}
		Random random = new Random(11);
		Run run = new Run(instances, threads, List.of("hot-0", "hot-1"));
		run.start();
		long started = System.nanoTime();
		long until = started + TimeUnit.SECONDS.toNanos(seconds);
		while (System.nanoTime() < until) {
			Thread.sleep(300 + random.nextInt(1200));
			if (random.nextInt(3) == 0) {
				this.proxies.forEach(FaultProxy::cutAll);
			}
			else {
				this.proxies.get(random.nextInt(this.proxies.size())).cutAll();
			}
		}
		run.stop();
		System.out.printf("Cut run: %d s, 3 instances x %d threads, %d cuts: %d sections, %d overlaps, %d locks lost, "
				+ "longest call %d ms, failures %s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), threads,
				this.proxies.stream().mapToInt(FaultProxy::cuts).sum(), run.sections.runs.get(), run.sections.overlaps.get(),
				this.lost.get(), TimeUnit.NANOSECONDS.toMillis(run.longestCallNanos.get()), run.failures);

		assertThat(run.sections.overlaps).as("overlapping sections").hasValue(0);
		assertThat(this.proxies.stream().mapToInt(FaultProxy::cuts).sum()).as("cuts").isGreaterThanOrEqualTo(10);
		assertThat(run.sections.runs.get()).as("sections run, failures %s", run.failures).isGreaterThan(50);
		assertThat(Duration.ofNanos(run.longestCallNanos.get())).as("longest call").isLessThanOrEqualTo(CALL_BOUND);
		assertNothingLeftInRedis();
	}

	/** Locks, queues and grants all gone once nobody holds or waits, within a lease and the queue's time-to-live. */
	private void assertNothingLeftInRedis() {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
			.untilAsserted(() -> assertThat(this.redis.keys()).as("keys left in Redis").isEmpty());
	}

	private RedisLockService service(FaultProxy proxy) {
		LettuceConnectionFactory factory = (proxy != null) ? RedisConnections.standalone(proxy.host(), proxy.port())
				: RedisConnections.standalone();
		this.factories.add(factory);
		RedisLockService service = RedisConnections.lockService(factory, this.redis.prefix(), (settings) -> {
			settings.setCommandTimeout(COMMAND_TIMEOUT);
			settings.setLeaseTime(LEASE);
			settings.setHeartbeatInterval(Duration.ofMillis(250));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					NetworkFaultTests.this.lost.incrementAndGet();
				}
			});
		});
		this.services.add(service);
		return service;
	}

	/** Sections that notice when two of them run at once on one key. */
	static final class Sections {

		final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger runs = new AtomicInteger();

		void run(String key) {
			AtomicInteger here = this.inside.computeIfAbsent(key, (k) -> new AtomicInteger());
			if (here.incrementAndGet() > 1) {
				this.overlaps.incrementAndGet();
			}
			LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200 + (System.nanoTime() % 1500)));
			here.decrementAndGet();
			this.runs.incrementAndGet();
		}

	}

	/** Threads on each service locking random keys of a few, until stopped. */
	static final class Run {

		final Sections sections = new Sections();

		final Map<String, Integer> failures = new ConcurrentHashMap<>();

		final AtomicLong longestCallNanos = new AtomicLong();

		private final List<RedisLockService> services;

		private final int threadsPerService;

		private final List<String> keys;

		private final ExecutorService threads;

		private final List<Future<?>> workers = new ArrayList<>();

		private volatile boolean running = true;

		Run(List<RedisLockService> services, int threadsPerService, List<String> keys) {
			this.services = services;
			this.threadsPerService = threadsPerService;
			this.keys = keys;
			this.threads = Executors.newFixedThreadPool(services.size() * threadsPerService);
		}

		void start() {
			for (RedisLockService service : this.services) {
				for (int i = 0; i < this.threadsPerService; i++) {
					this.workers.add(this.threads.submit(() -> work(service)));
				}
			}
		}

		private void work(RedisLockService service) {
			Random random = new Random();
			while (this.running) {
				String key = this.keys.get(random.nextInt(this.keys.size()));
				long start = System.nanoTime();
				try {
					service.runLocked(key, WAIT, () -> this.sections.run(key));
				}
				catch (LockException ex) {
					this.failures.merge(ex.getClass().getSimpleName(), 1, Integer::sum);
				}
				this.longestCallNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
			}
		}

		void stop() throws Exception {
			this.running = false;
			for (Future<?> worker : this.workers) {
				worker.get(60, TimeUnit.SECONDS);
			}
			this.threads.shutdown();
		}

	}

}
