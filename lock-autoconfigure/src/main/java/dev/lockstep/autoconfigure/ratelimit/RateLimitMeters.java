package dev.lockstep.autoconfigure.ratelimit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstep.RateLimiter;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * Counts rate-limit decisions as {@code lockstep.rate-limit.calls}, tagged {@code name} (the key up
 * to its first ':': the annotation's name for {@code @RateLimited}, whose keys are
 * {@code <name>:<key>}) and {@code outcome} ({@code allowed} or {@code refused}).
 */
final class RateLimitMeters {

	static final String CALLS = "lockstep.rate-limit.calls";

	private final MeterRegistry registry;

	RateLimitMeters(@Nullable RedisRateLimiter limiter, MeterRegistry registry) {
		this.registry = registry;
		if (limiter != null) {
			limiter.setDecisionListener(this::decided);
		}
	}

	private void decided(String key, RateLimiter.Decision decision) {
		int colon = key.indexOf(':');
		Counter.builder(CALLS)
			.description("Calls decided by a Lockstep rate limit")
			.tag("name", (colon > 0) ? key.substring(0, colon) : key)
			.tag("outcome", decision.allowed() ? "allowed" : "refused")
			.register(this.registry)
			.increment();
	}

}
