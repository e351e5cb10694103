package dev.lockstep.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.ratelimit.RedisRateLimiter;
import dev.lockstep.testing.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters and rate limits on a real three-master Redis Cluster: each count with its idempotency
 * records in one slot (a script touching both would fail with CROSSSLOT otherwise), each rate
 * limit's one key anywhere, the keys spread over the masters.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterCountersTests {

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private final String prefix = RedisConnections.uniquePrefix();

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
		factory = RedisConnections.cluster(cluster);
	}

	@AfterAll
	static void stopCluster() {
		if (factory != null) {
			factory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void countsStayWithinTheirLimitsOnEveryMaster() throws Exception {
		RedisCounters counters = new RedisCounters(factory);
		counters.setKeyPrefix(this.prefix);
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<String> keys = List.of("signup:1", "signup:2", "signup:3", "signup:4", "signup:5", "signup:6");
			CountDownLatch start = new CountDownLatch(1);
			AtomicInteger added = new AtomicInteger();
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				int thread = t;
				threads.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < 60; i++) {
						String key = keys.get((thread + i) % keys.size());
						// every fourth one idempotent, its id retried once
						boolean ok = (i % 4 == 0)
								? counters.tryIncrement(key, 1, 100, "m-" + thread + "-" + i)
										& counters.tryIncrement(key, 1, 100, "m-" + thread + "-" + i)
								: counters.tryIncrement(key, 100);
						if (ok) {
							added.incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			// 960 attempts over 6 keys of limit 100: exactly 600 counted, the retried ids once
			assertThat(added).hasValue(600);
			for (String key : keys) {
				assertThat(counters.current(key)).isEqualTo(100);
			}
			assertThat(mastersWithKeys()).as("the counts live on more than one master").hasSizeGreaterThan(1);
			assertThat(counters.decrement("signup:1", 40)).isEqualTo(60);
			assertThat(counters.tryIncrement("signup:1", 40, 100, Duration.ofMinutes(1))).isTrue();
		}
		finally {
			pool.shutdownNow();
			counters.close();
		}
	}

	@Test
	void rateLimitsWorkOnEveryMaster() {
		RedisRateLimiter limiter = new RedisRateLimiter(factory);
		limiter.setKeyPrefix(this.prefix);
		try {
			for (int key = 0; key < 6; key++) {
				for (int i = 0; i < 5; i++) {
					assertThat(limiter.tryAcquire("api:" + key, 5, Duration.ofMinutes(1)).allowed()).isTrue();
				}
				assertThat(limiter.tryAcquire("api:" + key, 5, Duration.ofMinutes(1)).allowed()).isFalse();
			}
			assertThat(mastersWithKeys()).as("the limits live on more than one master").hasSizeGreaterThan(1);
		}
		finally {
			limiter.close();
		}
	}

	private Set<Integer> mastersWithKeys() {
		Set<Integer> masters = new HashSet<>();
		for (int node = 0; node < cluster.nodes().size(); node++) {
			List<?> scan = (List<?>) cluster.nodes().get(node).call("SCAN", "0", "MATCH", this.prefix + "*", "COUNT", "100000");
			if (!((List<?>) scan.get(1)).isEmpty()) {
				masters.add(node);
			}
		}
		return masters;
	}

}
