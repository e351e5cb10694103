package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * H-KEYS: many distinct keys, each locked and released once by sixteen threads of one client,
 * then the client closed: what is left in Redis afterwards (keys and memory), against what was
 * there before the client connected. A lock that cleans up after itself leaves nothing.
 */
final class KeyMemoryScenario implements Scenario {

	static final int KEYS = 100_000;

	static final int THREADS = 16;

	static final Metric MEMORY_LEFT = Metric.count("Redis used_memory left, KB");

	static final Metric KEYS_LEFT = Metric.count("Redis keys left");

	@Override
	public Definition definition() {
		return new Definition("H-KEYS",
				KEYS + " distinct keys locked and released once (16 threads, one client), then the client closed: "
						+ "what is left in Redis",
				List.of(Library.LOCKSTEP, Library.REDISSON, Library.REGISTRY_PUB_SUB),
				List.of(KEYS_LEFT, MEMORY_LEFT));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		int keys = context.settings().isQuick() ? 2_000 : KEYS;
		BenchmarkRedis redis = context.redis();
		settle();
		long memoryBefore = redis.usedMemory();
		long keysBefore = redis.keyCount();
		AtomicInteger next = new AtomicInteger();
		try (LockClient client = library.connect(redis)) {
			new ParallelThreads().run(THREADS, "bench-h-keys", Duration.ofMinutes(5), "locking a key failed", (thread) -> {
				for (int i = next.getAndIncrement(); i < keys; i = next.getAndIncrement()) {
					client.lock(context.key("h-keys-" + i)).close();
				}
			});
		}
		settle();
		return new RunResult().with(KEYS_LEFT.name(), redis.keyCount() - keysBefore)
			.with(MEMORY_LEFT.name(), (redis.usedMemory() - memoryBefore) / 1024.0)
			.withNote(keys + " keys locked and released");
	}

	/** Lets Redis free what closed connections held (their buffers) before memory is read. */
	private static void settle() throws InterruptedException {
		TimeUnit.MILLISECONDS.sleep(Duration.ofMillis(500).toMillis());
	}

}
