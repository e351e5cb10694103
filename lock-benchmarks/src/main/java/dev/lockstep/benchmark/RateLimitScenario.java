package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * I-RATE: rate limits under contention. Four clients (four instances in miniature) with four
 * threads each call one key's limit of 200 a second as fast as they can for the measured window
 * and half a second: calls per second, what each call costs Redis and this JVM, and how many calls
 * were allowed against the most the library's own contract allows in that time. Then 1,000
 * distinct keys are called once each, the clients closed, and after the limit's period and 1.5 s
 * more the keys left in Redis are counted.
 */
final class RateLimitScenario implements Scenario {

	static final long LIMIT = 200;

	static final Duration PER = Duration.ofSeconds(1);

	static final int CLIENTS = 4;

	static final int THREADS = 16;

	static final int KEYS = 1_000;

	static final Metric CALLS = Metric.rate("calls/s");

	static final Metric COMMANDS = Metric.cost("Redis commands/call");

	static final Metric REDIS_CPU = Metric.cost("Redis CPU µs/call");

	static final Metric JVM_CPU = Metric.cost("JVM CPU µs/call");

	static final Metric ACCURACY = Metric.reference("allowed / the contract's most");

	static final Metric ALLOWED = Metric.count("allowed");

	static final Metric KEYS_LEFT = Metric.count("Redis keys left");

	@Override
	public Definition definition() {
		return new Definition("I-RATE", "one key's limit of " + LIMIT + "/s called by " + THREADS + " threads over " + CLIENTS
						+ " clients as fast as they can; then " + KEYS + " keys called once and the keys left after the clients close",
				List.of(Library.LOCKSTEP, Library.REDISSON_RATE_LIMITER, Library.BUCKET4J),
				List.of(CALLS, COMMANDS, REDIS_CPU, JVM_CPU, ALLOWED, ACCURACY, KEYS_LEFT));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		BenchmarkRedis redis = context.redis();
		int keys = context.settings().isQuick() ? 100 : KEYS;
		// every key of this run has a name of its own, so keys left by another library or round, which
		// may expire meanwhile, do not count
		String names = context.key("i-rate-" + library.id()) + "-";
		RunResult result = new RunResult();
		try (Clients<RateLimitClient> clients = Clients.open(CLIENTS, () -> connect(library, redis))) {
			String warmKey = names + "warm-up";
			callFor(clients, (call) -> warmKey, context.settings().warmup().toNanos(), Long.MAX_VALUE);
			CostMeter meter = CostMeter.start(redis);
			String hotKey = names + "hot";
			// half a period more than the window: a sliding window's most (a full limit each period begun) is reachable then
			Calls calls = callFor(clients, (call) -> hotKey, context.settings().measure().plus(PER.dividedBy(2)).toNanos(),
					Long.MAX_VALUE);
			CostMeter.Cost cost = meter.stop();
			double ceiling = clients.get(0).ceiling(LIMIT, PER, calls.nanos());
			result.with(CALLS.name(), calls.calls() * 1e9 / calls.nanos())
				.with(COMMANDS.name(), cost.commandsPer(calls.calls()))
				.with(REDIS_CPU.name(), cost.redisCpuPer(calls.calls()))
				.with(JVM_CPU.name(), cost.jvmCpuPer(calls.calls()))
				.with(ALLOWED.name(), calls.allowed())
				.with(ACCURACY.name(), calls.allowed() / ceiling)
				.withNote(String.format(Locale.ROOT, "%d of %d calls allowed in %.2f s (the contract's most: %.0f); per call: %s",
						calls.allowed(), calls.calls(), calls.nanos() / 1e9, ceiling, cost.commands().per(calls.calls())));
			String distinct = names + "key-";
			callFor(clients, (call) -> distinct + call, Long.MAX_VALUE, keys);
		}
		// every limit is idle now: a library that cleans up has let its keys expire by then
		TimeUnit.MILLISECONDS.sleep(PER.toMillis() + 1500);
		return result.with(KEYS_LEFT.name(), redis.keyCount(names));
	}

	private static RateLimitClient connect(Library library, BenchmarkRedis redis) {
		return switch (library) {
			case LOCKSTEP -> new LockstepRateLimitClient(redis);
			case REDISSON_RATE_LIMITER -> new RedissonRateLimitClient(redis);
			case BUCKET4J -> new Bucket4jRateLimitClient(redis);
			default -> throw new IllegalArgumentException(library.title() + " has no rate limiter here");
		};
	}

	/**
	 * {@link #THREADS} threads, thread {@code t} on client {@code t % CLIENTS}, call the key that
	 * {@code keys} names for each call number until {@code nanos} have passed or {@code limit}
	 * calls were made.
	 */
	private static Calls callFor(Clients<RateLimitClient> clients, Function<Long, String> keys, long nanos, long limit)
			throws InterruptedException {
		LongAdder allowed = new LongAdder();
		AtomicInteger next = new AtomicInteger();
		long start = System.nanoTime();
		new ParallelThreads().run(THREADS, "bench-i-rate", Duration.ofMinutes(5), "a rate-limit call failed", (thread) -> {
			RateLimitClient client = clients.ofThread(thread);
			for (long call = next.getAndIncrement(); call < limit && System.nanoTime() - start < nanos;
					call = next.getAndIncrement()) {
				if (client.tryAcquire(keys.apply(call))) {
					allowed.increment();
				}
			}
		});
		long elapsed = System.nanoTime() - start;
		// each thread's last getAndIncrement past the window or the limit made no call
		long made = Math.min(next.get() - THREADS, limit);
		return new Calls(made, allowed.sum(), elapsed);
	}

	/**
	 * @param calls calls made
	 * @param allowed calls allowed
	 * @param nanos from the first call to the last thread's end
	 */
	private record Calls(long calls, long allowed, long nanos) {
	}

}
