package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link RRateLimiter}, as its documentation sets one up: {@code trySetRate(OVERALL,
 * limit, per)} once per key (no keep-alive time: the default), then {@code tryAcquire()}. It keeps
 * the permits given out within the last {@code per} (a sorted set) and their sum, stamped with the
 * caller's clock: at most {@code limit} calls in any {@code per}.
 */
final class RedissonRateLimitClient implements RateLimitClient {

	private final RedissonClient client;

	private final Map<String, RRateLimiter> limiters = new ConcurrentHashMap<>();

	RedissonRateLimitClient(BenchmarkRedis redis) {
		this.client = BenchmarkRedis.redisson(redis.host(), redis.port());
	}

	@Override
	public boolean tryAcquire(String key) {
		return this.limiters.computeIfAbsent(key, this::limiter).tryAcquire();
	}

	private RRateLimiter limiter(String key) {
		RRateLimiter limiter = this.client.getRateLimiter("bench-redisson-rate:" + key);
		limiter.trySetRate(RateType.OVERALL, RateLimitScenario.LIMIT, RateLimitScenario.PER);
		return limiter;
	}

	/** A sliding window: {@code limit} in every {@code per}, so {@code limit} for each {@code per} begun. */
	@Override
	public double ceiling(long limit, Duration per, long nanos) {
		return limit * Math.ceil((double) nanos / per.toNanos());
	}

	@Override
	public void close() {
		this.client.shutdown();
	}

}
