package dev.lockstep.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

import dev.lockstep.Counters;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * {@code ratelimits}, {@code ratelimits/{key}} and {@code counters/{key}} of the endpoint: the
 * rate limiter's recent decisions and any key's bucket, and a counter's count through the
 * {@link Counters} API. Either may be missing (not there, or the application's own).
 * @param rateLimiter Lockstep's rate limiter, or null
 * @param counters the counters, or null
 */
record LimitEndpointPart(@Nullable RedisRateLimiter rateLimiter, @Nullable Counters counters) {

	/** {@code ratelimits} (no key) or {@code ratelimits/{key}}. */
	@Nullable Object rateLimits(@Nullable String key) {
		RedisRateLimiter limiter = this.rateLimiter;
		if (limiter == null) {
			return null;
		}
		return (key == null) ? limiter.recentKeys() : limiter.keyState(key);
	}

	/** {@code counters/{key}}; {@code counters} alone is not found. */
	@Nullable Object counter(@Nullable String key) {
		Counters current = this.counters;
		return (key != null && current != null) ? new LockstepEndpoint.CounterState(key, current.current(key)) : null;
	}

}
