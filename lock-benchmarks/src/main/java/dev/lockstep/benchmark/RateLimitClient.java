package dev.lockstep.benchmark;

import java.time.Duration;

/**
 * One library's rate limiter as scenario I-RATE uses it: one client (connections of its own)
 * standing for one instance of a service, all its limits at {@link RateLimitScenario#LIMIT} calls
 * per {@link RateLimitScenario#PER}.
 */
interface RateLimitClient extends LibraryClient {

	/** Takes one call from {@code key}'s limit; whether it was allowed. */
	boolean tryAcquire(String key) throws Exception;

	/**
	 * The most calls the library's own contract allows on one key, called from its first call on,
	 * over {@code nanos}: for a token bucket that starts full, the burst and the rate.
	 */
	default double ceiling(long limit, Duration per, long nanos) {
		return limit + (double) limit * nanos / per.toNanos();
	}

}
