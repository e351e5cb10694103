package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

/**
 * A child JVM standing for one application instance that takes permits, with its own lock
 * service on the Redis named by its arguments.
 *
 * <ul>
 * <li>{@code contend <host> <port> <prefix> <workers> <threads> <iterations> <limit>}: once
 * {@code workers} processes are ready, runs {@code threads} threads of {@code iterations}
 * sections each under one of 4 permits of key {@code range}, then (all processes together again)
 * the same under one of 8 permits of key {@code control}: the control, since 8 let more than 4 in.
 * Every section INCRs a per-key counter at the server on entry and DECRs it on exit: a section that
 * reads more than {@code limit} saw more than {@code limit} inside. Prints {@code SUMMARY
 * sections=.. over=.. most=.. duplicates=.. controlOver=.. controlMost=.. longestWait=.. lost=..
 * errors=..} (longestWait: the longest acquisition in ms; duplicates: tokens handed out twice).</li>
 * <li>{@code hold <host> <port> <prefix> <key> <permits> <lease ms> <heartbeat ms>}: takes a permit
 * with a watchdog lease, prints {@code HELD <fencing token>} and blocks until killed.</li>
 * </ul>
 * Permits live under {@code <prefix>lock:}, the probe's keys under {@code <prefix>probe:}.
 */
final class PermitWorker {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private PermitWorker() {
	}

	public static void main(String[] args) throws Exception {
		LockingWorker.haltWhenOrphaned();
		String host = args[1];
		int port = Integer.parseInt(args[2]);
		String prefix = args[3];
		switch (args[0]) {
			case "contend" -> contend(host, port, prefix, Integer.parseInt(args[4]), Integer.parseInt(args[5]),
					Integer.parseInt(args[6]), Integer.parseInt(args[7]));
			case "hold" -> hold(host, port, prefix, args[4], Integer.parseInt(args[5]),
					Duration.ofMillis(Long.parseLong(args[6])), Duration.ofMillis(Long.parseLong(args[7])));
			default -> throw new IllegalArgumentException("Unknown mode " + args[0]);
		}
	}

	private static void contend(String host, int port, String prefix, int workers, int threadCount, int iterations,
			int limit) throws Exception {
		LettuceConnectionFactory lockConnection = RedisConnections.standalone(host, port);
		LettuceConnectionFactory probeConnection = RedisConnections.standalone(host, port);
		StringRedisTemplate probe = new StringRedisTemplate(probeConnection);
		probe.afterPropertiesSet();
		AtomicInteger lost = new AtomicInteger();
		RedisLockService service = RedisConnections.lockService(lockConnection, LockingWorker.lockPrefix(prefix),
				(settings) -> settings.setListener(new LockListener() {
					@Override
					public void lost(LockLostEvent event) {
						lost.incrementAndGet();
					}
				}));
		ExecutorService threads = Executors.newFixedThreadPool(threadCount);
		Phase range = new Phase("range", 4);
		Phase control = new Phase("control", 8);
		for (Phase phase : List.of(range, control)) {
			awaitWorkers(probe, prefix + "probe:ready:" + phase.key, workers);
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threadCount; t++) {
				running.add(threads.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						phase.section(service, probe, prefix + "probe:", limit);
					}
				}));
			}
			for (Future<?> thread : running) {
				thread.get(10, TimeUnit.MINUTES);
			}
		}
		threads.shutdown();
		service.stop();
		lockConnection.destroy();
		probeConnection.destroy();
		System.out.println("SUMMARY sections=" + range.sections + " over=" + range.over + " most=" + range.most
				+ " duplicates=" + range.duplicates + " controlOver=" + control.over + " controlMost=" + control.most
				+ " longestWait=" + TimeUnit.NANOSECONDS.toMillis(range.longestWaitNanos.get()) + " lost=" + lost
				+ " errors=" + (range.errors.get() + control.errors.get()));
		System.out.flush();
		System.exit(0);
	}

	/** The sections on one key under one number of permits. */
	private static final class Phase {

		private final String key;

		private final int permits;

		private final AtomicInteger sections = new AtomicInteger();

		private final AtomicInteger over = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		private final AtomicInteger duplicates = new AtomicInteger();

		private final AtomicInteger errors = new AtomicInteger();

		private final AtomicLong longestWaitNanos = new AtomicLong();

		Phase(String key, int permits) {
			this.key = key;
			this.permits = permits;
		}

		void section(RedisLockService service, StringRedisTemplate probe, String probePrefix, int limit) {
			long asked = System.nanoTime();
			try (LockHandle handle = service.acquirePermit(this.key, this.permits, WAIT)) {
				this.longestWaitNanos.accumulateAndGet(System.nanoTime() - asked, Math::max);
				Long inside = probe.opsForValue().increment(probePrefix + this.key + ":inside");
				try {
					if (inside == null || inside > limit) {
						this.over.incrementAndGet();
					}
					this.most.accumulateAndGet((inside != null) ? inside.intValue() : Integer.MAX_VALUE, Math::max);
					Long added = probe.opsForSet().add(probePrefix + this.key + ":tokens", Long.toString(handle.fencingToken()));
					if (added == null || added != 1) {
						this.duplicates.incrementAndGet();
					}
					LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 4_000_000));
				}
				finally {
					probe.opsForValue().decrement(probePrefix + this.key + ":inside");
				}
				this.sections.incrementAndGet();
			}
			catch (RuntimeException ex) {
				this.errors.incrementAndGet();
				ex.printStackTrace(System.out);
			}
		}

	}

	private static void awaitWorkers(StringRedisTemplate probe, String readyKey, int workers) {
		probe.opsForValue().increment(readyKey);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			String ready = probe.opsForValue().get(readyKey);
			if (ready != null && Long.parseLong(ready) >= workers) {
				return;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Only " + ready + " of " + workers + " workers ready");
			}
			LockSupport.parkNanos(5_000_000);
		}
	}

	private static void hold(String host, int port, String prefix, String key, int permits, Duration lease,
			Duration heartbeat) throws InterruptedException {
		LettuceConnectionFactory connection = RedisConnections.standalone(host, port);
		RedisLockService service = RedisConnections.lockService(connection, LockingWorker.lockPrefix(prefix),
				(settings) -> {
					settings.setLeaseTime(lease);
					settings.setHeartbeatInterval(heartbeat);
				});
		LockHandle handle = service.acquirePermit(key, permits, WAIT);
		System.out.println("HELD " + handle.fencingToken());
		System.out.flush();
		new CountDownLatch(1).await();
	}

}
