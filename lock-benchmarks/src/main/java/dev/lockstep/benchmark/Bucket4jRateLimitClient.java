package dev.lockstep.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Bucket4j's Lettuce proxy manager: a token bucket of {@code limit} that refills {@code limit} per
 * {@code per} greedily, its state read and written back with compare-and-swap (a retry when
 * another client wrote in between), computed on the caller's clock; each bucket expires once it
 * would be full again, plus one second ({@code basedOnTimeForRefillingBucketUpToMax}).
 */
final class Bucket4jRateLimitClient implements RateLimitClient {

	private static final BucketConfiguration CONFIGURATION = BucketConfiguration.builder()
		.addLimit((limit) -> limit.capacity(RateLimitScenario.LIMIT).refillGreedy(RateLimitScenario.LIMIT, RateLimitScenario.PER))
		.build();

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final LettuceBasedProxyManager<byte[]> buckets;

	private final Map<String, BucketProxy> proxies = new ConcurrentHashMap<>();

	Bucket4jRateLimitClient(BenchmarkRedis redis) {
		this.client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.buckets = LettuceBasedProxyManager.builderFor(this.connection)
			.withExpirationStrategy(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
			.build();
	}

	@Override
	public boolean tryAcquire(String key) {
		return this.proxies.computeIfAbsent(key, (name) -> this.buckets.builder()
			.build(("bench-bucket4j:" + name).getBytes(StandardCharsets.UTF_8), () -> CONFIGURATION)).tryConsume(1);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
