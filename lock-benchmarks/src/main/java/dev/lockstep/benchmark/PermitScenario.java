package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * I-PERMIT: permits under contention. Four clients (four instances in miniature) with four
 * threads each take one of a key's four permits, hold it about a millisecond and release it, back
 * to back for the measured window: acquisitions per second, what each costs Redis and this JVM,
 * and the most holders seen inside at once by a counter each holder raises after it has its
 * permit and lowers before it releases it (never above four, or the permits let one too many
 * in). Two seconds after the clients close, the keys left in Redis are counted.
 */
final class PermitScenario implements Scenario {

	static final int PERMITS = 4;

	static final int CLIENTS = 4;

	static final int THREADS = 16;

	static final Duration HOLD = Duration.ofMillis(1);

	/** How long after the clients close the keys left are counted. */
	static final Duration KEYS_SETTLE = Duration.ofSeconds(2);

	static final Metric ACQUISITIONS = Metric.rate("acquisitions/s");

	static final Metric COMMANDS = Metric.cost("Redis commands/acquisition");

	static final Metric REDIS_CPU = Metric.cost("Redis CPU µs/acquisition");

	static final Metric JVM_CPU = Metric.cost("JVM CPU µs/acquisition");

	/** The most of any round: one round above {@link #PERMITS} is a broken semaphore. */
	static final Metric MOST_INSIDE = most("most holders at once (at most " + PERMITS + ")");

	static final Metric KEYS_LEFT = Metric.count("Redis keys left");

	@Override
	public Definition definition() {
		return new Definition("I-PERMIT",
				THREADS + " threads over " + CLIENTS + " clients on one key's " + PERMITS + " permits, each held ~"
						+ HOLD.toMillis() + " ms; then the keys left 2 s after the clients close",
				List.of(Library.LOCKSTEP, Library.REDISSON_PERMITS),
				List.of(ACQUISITIONS, COMMANDS, REDIS_CPU, JVM_CPU, MOST_INSIDE, Metric.overlaps(), KEYS_LEFT));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		BenchmarkRedis redis = context.redis();
		// every key of this run has a name of its own, so keys left by another library or round, which
		// may expire meanwhile, do not count
		String names = context.key("i-permit-" + library.id()) + "-";
		RunResult result = new RunResult();
		try (Clients<PermitClient> clients = Clients.open(CLIENTS, () -> connect(library, redis))) {
			Holds warmUp = holdFor(clients, names + "warm-up", context.settings().warmup().toNanos());
			CostMeter meter = CostMeter.start(redis);
			Holds holds = holdFor(clients, names + "hot", context.settings().measure().toNanos());
			CostMeter.Cost cost = meter.stop();
			result.with(ACQUISITIONS.name(), holds.acquisitions() * 1e9 / holds.nanos())
				.with(COMMANDS.name(), cost.commandsPer(holds.acquisitions()))
				.with(REDIS_CPU.name(), cost.redisCpuPer(holds.acquisitions()))
				.with(JVM_CPU.name(), cost.jvmCpuPer(holds.acquisitions()))
				.with(MOST_INSIDE.name(), Math.max(warmUp.mostInside(), holds.mostInside()))
				.withOverlaps(warmUp.overlaps() + holds.overlaps())
				.withNote(String.format(Locale.ROOT, "%d acquisitions in %.2f s, at most %d inside; per acquisition: %s",
						holds.acquisitions(), holds.nanos() / 1e9, holds.mostInside(), cost.commands().per(holds.acquisitions())));
		}
		// every permit was released before its client closed; a library that cleans up has let its keys
		// expire by then (Lockstep keeps a key's token counter a second past its last holder)
		TimeUnit.MILLISECONDS.sleep(KEYS_SETTLE.toMillis());
		return result.with(KEYS_LEFT.name(), redis.keyCount(names));
	}

	/** The highest figure of all rounds rather than their median, written as a whole number. */
	private static Metric most(String name) {
		return new Metric(name, Metric.Better.NEITHER,
				(runs) -> runs.stream().map((run) -> run.value(name)).filter(Objects::nonNull).max(Double::compare).orElse(null),
				(value) -> String.format(Locale.ROOT, "%.0f", value));
	}

	private static PermitClient connect(Library library, BenchmarkRedis redis) {
		return switch (library) {
			case LOCKSTEP -> new LockstepClient(redis);
			case REDISSON_PERMITS -> new RedissonPermitClient(redis);
			default -> throw new IllegalArgumentException(library.title() + " has no permits here");
		};
	}

	/**
	 * {@link #THREADS} threads, thread {@code t} on client {@code t % CLIENTS}, take a permit of
	 * {@code key}, hold it {@link #HOLD} and release it until {@code nanos} have passed.
	 */
	private static Holds holdFor(Clients<PermitClient> clients, String key, long nanos) throws InterruptedException {
		LongAdder acquisitions = new LongAdder();
		LongAdder overlaps = new LongAdder();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger mostInside = new AtomicInteger();
		ParallelThreads threads = new ParallelThreads();
		long start = System.nanoTime();
		threads.run(THREADS, "bench-i-permit", Duration.ofMinutes(5), "a permit's acquisition or release failed", (thread) -> {
			PermitClient client = clients.ofThread(thread);
			while (System.nanoTime() - start < nanos && !threads.failed()) {
				PermitClient.Permit permit = client.acquire(key);
				int now = inside.incrementAndGet();
				mostInside.accumulateAndGet(now, Math::max);
				if (now > PERMITS) {
					overlaps.increment();
				}
				hold();
				inside.decrementAndGet();
				permit.release();
				acquisitions.increment();
			}
		});
		long elapsed = System.nanoTime() - start;
		return new Holds(acquisitions.sum(), mostInside.get(), overlaps.sum(), elapsed);
	}

	/** Parks for {@link #HOLD}, parking again after a spurious wake-up. */
	private static void hold() {
		long end = System.nanoTime() + HOLD.toNanos();
		for (long left = HOLD.toNanos(); left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	/**
	 * @param acquisitions permits taken and released
	 * @param mostInside the most holders inside at once
	 * @param overlaps entries that found {@link #PERMITS} holders already inside
	 * @param nanos from the first acquisition to the last thread's end
	 */
	private record Holds(long acquisitions, int mostInside, long overlaps, long nanos) {
	}

}
