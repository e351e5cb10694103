package dev.lockstep.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.lockstep.RateLimiter.Decision;

/**
 * The keys this instance decided on most recently, with the limit each was last called with, for
 * the actuator endpoint: Redis is never scanned for them. Holds at most {@link #CAPACITY} keys; a
 * new key past it pushes out the one decided on longest ago.
 */
final class RecentRateLimits {

	static final int CAPACITY = 100;

	private final Map<String, RedisRateLimiter.RecentKey> keys = new ConcurrentHashMap<>();

	void decided(String key, long limit, Duration per, Decision decision) {
		RedisRateLimiter.RecentKey recent = new RedisRateLimiter.RecentKey(key, limit, per, decision.allowed(), Instant.now());
		if (this.keys.put(key, recent) == null && this.keys.size() > CAPACITY) {
			// only when a new key comes in beyond capacity: a scan of at most CAPACITY + a few entries
			this.keys.values()
				.stream()
				.min(Comparator.comparing(RedisRateLimiter.RecentKey::decidedAt))
				.ifPresent((oldest) -> this.keys.remove(oldest.key(), oldest));
		}
	}

	List<RedisRateLimiter.RecentKey> keys() {
		return this.keys.values()
			.stream()
			.sorted(Comparator.comparing(RedisRateLimiter.RecentKey::decidedAt).reversed())
			.toList();
	}

	RedisRateLimiter.@Nullable RecentKey get(String key) {
		return this.keys.get(key);
	}

}
