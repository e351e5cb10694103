package dev.lockstep.benchmark;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.ratelimit.RedisRateLimiter;

/** Lockstep's {@link RedisRateLimiter} (GCRA on Redis's clock, one script per call) on a connection factory of its own. */
final class LockstepRateLimitClient implements RateLimitClient {

	private final LettuceConnectionFactory connections;

	private final RedisRateLimiter limiter;

	LockstepRateLimitClient(BenchmarkRedis redis) {
		this.connections = redis.connect();
		this.limiter = LockstepServices.rateLimiter(this.connections);
	}

	@Override
	public boolean tryAcquire(String key) {
		return this.limiter.tryAcquire(key, RateLimitScenario.LIMIT, RateLimitScenario.PER).allowed();
	}

	@Override
	public void close() {
		this.limiter.close();
		this.connections.destroy();
	}

}
