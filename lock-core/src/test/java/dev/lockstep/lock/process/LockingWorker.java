package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.JavaProcess;

/**
 * A child JVM standing for one application instance, with its own lock service (its own
 * instance id) on the Redis named by its arguments.
 *
 * <ul>
 * <li>{@code contend <host> <port> <prefix> <workers> <threads> <iterations> <keys> <locked>}: once
 * {@code workers} processes are ready, runs {@code threads} threads of {@code iterations}
 * critical sections each over {@code keys} keys, every section checked by a {@link SectionProbe};
 * prints {@code SUMMARY sections=.. overlaps=.. regressions=.. lost=.. errors=..} and exits 0. With
 * {@code locked} false the sections run without the lock, to show that the probe sees overlap.</li>
 * <li>{@code contend-through <host> <port> <prefix> <workers> <threads> <seconds> <keys> <lock host>
 * <lock port>}: the same for {@code seconds}, with the lock service's connection going to
 * {@code <lock host>:<lock port>} (a fault proxy in the test JVM) and the probe's straight to
 * Redis; lock calls that fail are counted, not fatal; prints {@code SUMMARY sections=.. overlaps=..
 * regressions=.. lost=.. errors=.. millis=.. notAcquired=.. unavailable=.. longest=..} (longest: the
 * longest lock call in milliseconds).</li>
 * <li>{@code hold <host> <port> <prefix> <key> <lease ms> <heartbeat ms>}: takes the lock with a
 * watchdog lease, prints {@code HELD <fencing token>} and blocks until killed.</li>
 * </ul>
 * Locks live under {@code <prefix>lock:}, the probe's keys under {@code <prefix>probe:}. A worker
 * halts when the JVM that started it dies, so a killed test run leaves no orphans.
 */
final class LockingWorker {

	/** Small and quick to start: several of these share two cores with the test and Redis. */
	static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

	private static final Duration WAIT = Duration.ofSeconds(60);

	/** Settings of the fault runs: short, so that faults show as timeouts and lost leases. */
	static final Duration FAULT_COMMAND_TIMEOUT = Duration.ofMillis(400);

	static final Duration FAULT_WAIT = Duration.ofSeconds(1);

	/** Long enough for the soak run's ten minutes. */
	private static final Duration LONGEST_LIFE = Duration.ofMinutes(20);

	private LockingWorker() {
	}

	public static void main(String[] args) throws Exception {
		haltWhenOrphaned();
		String host = args[1];
		int port = Integer.parseInt(args[2]);
		String prefix = args[3];
		switch (args[0]) {
			case "contend" -> contend(host, port, prefix, Integer.parseInt(args[4]), Integer.parseInt(args[5]),
					Integer.parseInt(args[6]), Integer.parseInt(args[7]), Boolean.parseBoolean(args[8]));
			case "contend-through" -> contendThrough(host, port, prefix, Integer.parseInt(args[4]),
					Integer.parseInt(args[5]), Duration.ofSeconds(Long.parseLong(args[6])), Integer.parseInt(args[7]), args[8],
					Integer.parseInt(args[9]));
			case "hold" -> hold(host, port, prefix, args[4], Duration.ofMillis(Long.parseLong(args[5])),
					Duration.ofMillis(Long.parseLong(args[6])));
			case "hold-until-lost" -> holdUntilLost(host, port, prefix, args[4], Duration.ofMillis(Long.parseLong(args[5])),
					Duration.ofMillis(Long.parseLong(args[6])));
			case "wait" -> waitOnce(host, port, prefix, args[4], Duration.ofMillis(Long.parseLong(args[5])), null);
			case "wait-with-lease" -> waitOnce(host, port, prefix, args[4], Duration.ofMillis(Long.parseLong(args[5])),
					Duration.ofMillis(Long.parseLong(args[6])));
			default -> throw new IllegalArgumentException("Unknown mode " + args[0]);
		}
	}

	static String lockPrefix(String prefix) {
		return prefix + "lock:";
	}

	private static void contend(String host, int port, String prefix, int workers, int threadCount, int iterations,
			int keyCount, boolean locked) throws Exception {
		LettuceConnectionFactory lockConnection = RedisConnections.standalone(host, port);
		// The probe talks to Redis over a connection of its own, never through the lock.
		LettuceConnectionFactory probeConnection = RedisConnections.standalone(host, port);
		StringRedisTemplate probeRedis = new StringRedisTemplate(probeConnection);
		probeRedis.afterPropertiesSet();
		SectionProbe probe = new SectionProbe(probeRedis, prefix + "probe:");
		RedisLockService service = RedisConnections.lockService(lockConnection, lockPrefix(prefix), (settings) -> {
		});
		AtomicInteger sections = new AtomicInteger();
		AtomicInteger lost = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(threadCount);
		probe.awaitWorkers(workers, Duration.ofSeconds(60));
		long start = System.nanoTime();
		List<Future<?>> running = new ArrayList<>();
		for (int t = 0; t < threadCount; t++) {
			int seed = t;
			running.add(threads.submit(() -> {
				for (int i = 0; i < iterations; i++) {
					String key = "key-" + ((seed + i) % keyCount);
					try {
						if (!section(service, probe, key, locked)) {
							lost.incrementAndGet();
						}
						sections.incrementAndGet();
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
						ex.printStackTrace(System.out);
					}
				}
			}));
		}
		threads.shutdown();
		for (Future<?> thread : running) {
			thread.get(LONGEST_LIFE.toSeconds(), TimeUnit.SECONDS);
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		service.stop();
		lockConnection.destroy();
		probeConnection.destroy();
		System.out.println("SUMMARY sections=" + sections + " overlaps=" + probe.overlaps() + " regressions="
				+ probe.regressions() + " lost=" + lost + " errors=" + errors + " millis=" + millis);
		System.out.flush();
		System.exit(0);
	}

	private static void contendThrough(String host, int port, String prefix, int workers, int threadCount,
			Duration duration, int keyCount, String lockHost, int lockPort) throws Exception {
		LettuceConnectionFactory lockConnection = RedisConnections.standalone(lockHost, lockPort);
		LettuceConnectionFactory probeConnection = RedisConnections.standalone(host, port);
		StringRedisTemplate probeRedis = new StringRedisTemplate(probeConnection);
		probeRedis.afterPropertiesSet();
		SectionProbe probe = new SectionProbe(probeRedis, prefix + "probe:");
		AtomicInteger lost = new AtomicInteger();
		RedisLockService service = RedisConnections.lockService(lockConnection, lockPrefix(prefix), (settings) -> {
			settings.setCommandTimeout(FAULT_COMMAND_TIMEOUT);
			settings.setLeaseTime(Duration.ofSeconds(3));
			settings.setHeartbeatInterval(Duration.ofMillis(250));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					lost.incrementAndGet();
				}
			});
		});
		AtomicInteger sections = new AtomicInteger();
		AtomicInteger notAcquired = new AtomicInteger();
		AtomicInteger unavailable = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		AtomicLong longestNanos = new AtomicLong();
		ExecutorService threads = Executors.newFixedThreadPool(threadCount);
		probe.awaitWorkers(workers, Duration.ofSeconds(60));
		long start = System.nanoTime();
		long until = start + duration.toNanos();
		List<Future<?>> running = new ArrayList<>();
		for (int t = 0; t < threadCount; t++) {
			int seed = t;
			running.add(threads.submit(() -> {
				Random random = new Random(seed);
				while (System.nanoTime() - until < 0) {
					String key = "key-" + random.nextInt(keyCount);
					long called = System.nanoTime();
					try {
						try (LockHandle handle = service.acquire(key, FAULT_WAIT)) {
							probe.section(key, handle.fencingToken());
						}
						sections.incrementAndGet();
					}
					catch (LockNotAcquiredException ex) {
						notAcquired.incrementAndGet();
					}
					catch (LockUnavailableException ex) {
						unavailable.incrementAndGet();
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
						ex.printStackTrace(System.out);
					}
					longestNanos.accumulateAndGet(System.nanoTime() - called, Math::max);
				}
			}));
		}
		threads.shutdown();
		for (Future<?> thread : running) {
			thread.get(duration.toSeconds() + LONGEST_LIFE.toSeconds(), TimeUnit.SECONDS);
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		service.stop();
		lockConnection.destroy();
		probeConnection.destroy();
		System.out.println("SUMMARY sections=" + sections + " overlaps=" + probe.overlaps() + " regressions="
				+ probe.regressions() + " lost=" + lost + " errors=" + errors + " millis=" + millis + " notAcquired="
				+ notAcquired + " unavailable=" + unavailable + " longest=" + TimeUnit.NANOSECONDS.toMillis(longestNanos.get()));
		System.out.flush();
		System.exit(0);
	}

	/** One critical section; false if the lock was found lost by its end. */
	private static boolean section(RedisLockService service, SectionProbe probe, String key, boolean locked) {
		if (!locked) {
			probe.section(key, 0);
			return true;
		}
		try (LockHandle handle = service.acquire(key, WAIT)) {
			probe.section(key, handle.fencingToken());
			return handle.isHeld();
		}
	}

	private static void hold(String host, int port, String prefix, String key, Duration lease, Duration heartbeat)
			throws InterruptedException {
		LettuceConnectionFactory connection = RedisConnections.standalone(host, port);
		RedisLockService service = RedisConnections.lockService(connection, lockPrefix(prefix), (settings) -> {
			settings.setLeaseTime(lease);
			settings.setHeartbeatInterval(heartbeat);
		});
		LockHandle handle = service.acquire(key, WAIT);
		System.out.println("HELD " + handle.fencingToken());
		System.out.flush();
		new CountDownLatch(1).await();
	}

	/**
	 * Holds the lock, and says when its handle stops saying held ("NOT-HELD") and when a lost-lock
	 * event comes ("LOST token"); once both have happened, releases it late ("RELEASED").
	 */
	private static void holdUntilLost(String host, int port, String prefix, String key, Duration lease,
			Duration heartbeat) throws InterruptedException {
		LettuceConnectionFactory connection = RedisConnections.standalone(host, port);
		CountDownLatch lost = new CountDownLatch(1);
		RedisLockService service = RedisConnections.lockService(connection, lockPrefix(prefix), (settings) -> {
			settings.setLeaseTime(lease);
			settings.setHeartbeatInterval(heartbeat);
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					System.out.println("LOST " + event.fencingToken());
					System.out.flush();
					lost.countDown();
				}
			});
		});
		LockHandle handle = service.acquire(key, WAIT);
		System.out.println("HELD " + handle.fencingToken());
		System.out.flush();
		while (handle.isHeld()) {
			Thread.sleep(10);
		}
		System.out.println("NOT-HELD");
		System.out.flush();
		lost.await();
		handle.close();
		System.out.println("RELEASED");
		System.out.flush();
		new CountDownLatch(1).await();
	}

	/**
	 * Waits for the lock once (with an explicit lease if {@code lease} is set), says when it has it
	 * (token, and whether the handle says held), and releases it.
	 */
	private static void waitOnce(String host, int port, String prefix, String key, Duration heartbeat,
			@Nullable Duration lease) throws InterruptedException {
		LettuceConnectionFactory connection = RedisConnections.standalone(host, port);
		RedisLockService service = RedisConnections.lockService(connection, lockPrefix(prefix),
				(settings) -> settings.setHeartbeatInterval(heartbeat));
		System.out.println("READY");
		System.out.flush();
		try (LockHandle handle = (lease != null) ? service.tryAcquire(key, WAIT, lease).orElseThrow()
				: service.acquire(key, WAIT)) {
			System.out.println("ACQUIRED " + handle.fencingToken() + " " + handle.isHeld());
			System.out.flush();
			Thread.sleep(200);
		}
		System.out.println("RELEASED");
		System.out.flush();
		new CountDownLatch(1).await();
	}

	/**
	 * The {@code SUMMARY} line a worker printed, as name to value; waits a little for it, since the
	 * output reader may still be draining the pipe just after the exit.
	 */
	static Map<String, Long> summary(JavaProcess process) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() - deadline < 0) {
			for (String line : process.lines()) {
				if (line.startsWith("SUMMARY ")) {
					Map<String, Long> values = new LinkedHashMap<>();
					for (String pair : line.substring("SUMMARY ".length()).trim().split(" ")) {
						int equals = pair.indexOf('=');
						values.put(pair.substring(0, equals), Long.parseLong(pair.substring(equals + 1)));
					}
					return values;
				}
			}
			LockSupport.parkNanos(20_000_000);
		}
		throw new IllegalStateException("No summary line from " + process + ". Output:\n" + process.output());
	}

	/** Halts when the parent JVM is gone, and after {@link #LONGEST_LIFE} in any case. */
	static void haltWhenOrphaned() {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		Thread reaper = new Thread(() -> {
			try {
				Thread.sleep(LONGEST_LIFE.toMillis());
			}
			catch (InterruptedException ex) {
				return;
			}
			Runtime.getRuntime().halt(5);
		}, "longest-life");
		reaper.setDaemon(true);
		reaper.start();
	}

}
