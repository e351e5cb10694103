package dev.lockstep;

import java.time.Duration;

/**
 * Rate limits shared by every instance: at most {@code limit} calls per {@code per} for one key,
 * decided in Redis on the Redis server's clock (never the instances' clocks, which may disagree)
 * in one step per call. The programmatic twin of {@link dev.lockstep.annotation.RateLimited}.
 * <p>
 * The limit is a generic cell rate (a token bucket kept as one timestamp per key): a key that was
 * idle has a full bucket of {@code limit} calls (the burst), which refills at one call every
 * {@code per / limit}. So a burst of up to {@code limit} calls is allowed at once, and over any
 * stretch of time {@code t} at most {@code limit + limit * t / per} calls are allowed: at most
 * twice the limit within one {@code per}, and the limit per {@code per} over long stretches. A key
 * takes O(1) memory in Redis and expires once its bucket is full again.
 * <p>
 * A limit or {@code per} changed between deployments takes effect at once without resetting what
 * was used: the bucket keeps how far it was drawn, in time ({@code per / limit} for each call), so
 * a key that used half of its old limit has used half of its new one.
 * <p>
 * Keys are stored under the key prefix in a hash tag of their own ({@code <prefix>{rate:<key>}}),
 * so a Redis Cluster works; a key must not be blank nor contain braces.
 */
public interface RateLimiter {

	/**
	 * Takes one call from the key's bucket if it has one.
	 * @param limit calls per {@code per}, at least 1 (also the burst: the bucket's size)
	 * @param per at least 1ms
	 * @throws IllegalArgumentException naming the argument at fault
	 * @throws LockUnavailableException if Redis cannot be reached or fails and the limiter refuses
	 * then (the default; {@code lockstep.rate-limit.when-unavailable=allow} lets the call through)
	 */
	Decision tryAcquire(String key, long limit, Duration per);

	/**
	 * How a call was decided.
	 * @param allowed whether the call may go ahead (one call was taken from the bucket)
	 * @param remaining how many more calls the bucket allows right now
	 * @param retryAfter when refused, how long until the bucket allows a call; zero when allowed
	 */
	record Decision(boolean allowed, long remaining, Duration retryAfter) {
	}

}
