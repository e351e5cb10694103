package dev.lockstep.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

import dev.lockstep.Counters;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * {@code ratelimits}, {@code ratelimits/{key}} and {@code counters/{key}} of the endpoint: the
 * rate limiter's recent decisions and any key's bucket, and a counter's count through the
 * {@link Counters} API. Either may be missing (not there, or the application's own).
 */
final class LimitEndpointPart {

	private final @Nullable RedisRateLimiter rateLimiter;

	private final @Nullable Counters counters;

	LimitEndpointPart(@Nullable RedisRateLimiter rateLimiter, @Nullable Counters counters) {
		this.rateLimiter = rateLimiter;
		this.counters = counters;
	}

	/** {@code ratelimits} (no key) or {@code ratelimits/{key}}. */
	@Nullable Object rateLimits(@Nullable String key) {
		if (this.rateLimiter == null) {
			return null;
		}
		return (key == null) ? this.rateLimiter.recentKeys() : this.rateLimiter.keyState(key);
	}

	/** {@code counters/{key}}; {@code counters} alone is not found. */
	@Nullable Object counter(@Nullable String key) {
		return (key != null && this.counters != null) ? new LockstepEndpoint.CounterState(key, this.counters.current(key))
				: null;
	}

}
