package dev.lockstep.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstep.autoconfigure.metrics.KeyNameCounter;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * Counts rate-limit decisions as {@code lockstep.rate-limit.calls}, tagged {@code name} (the key up
 * to its first ':': the annotation's name for {@code @RateLimited}, whose keys are
 * {@code <name>:<key>}) and {@code outcome} ({@code allowed} or {@code refused}).
 */
final class RateLimitMeters {

	static final String CALLS = "lockstep.rate-limit.calls";

	RateLimitMeters(@Nullable RedisRateLimiter limiter, MeterRegistry registry) {
		KeyNameCounter calls = new KeyNameCounter(registry, CALLS, "Calls decided by a Lockstep rate limit");
		if (limiter != null) {
			limiter.setDecisionListener(
					(key, decision) -> calls.increment(key, "outcome", decision.allowed() ? "allowed" : "refused"));
		}
	}

}
