package dev.lockstep;

import java.time.Duration;

/**
 * Bounded counts shared by every instance: a count goes up only while it stays within its limit,
 * decided in Redis in one step per call, so two instances can never both take the last place (as
 * a read, an add and a write from each of them could). A count that was never incremented is 0;
 * a count is never negative.
 *
 * <pre class="code">
 * if (!counters.tryIncrement("signup:" + eventId, 500)) {
 *     throw new EventFullException(eventId);
 * }
 * </pre>
 *
 * Keys are the application's names; Lockstep stores each under its key prefix in a hash tag of
 * its own ({@code <prefix>{counter:<key>}}), so a Redis Cluster works. A key must not be blank nor
 * contain braces. Every method throws {@link IllegalArgumentException} naming the argument at
 * fault for a bad one, and {@link LockUnavailableException} when Redis cannot be reached or fails
 * (nothing is counted then: counters fail closed).
 */
public interface Counters {

	/**
	 * Adds 1 unless the count would exceed {@code limit}.
	 * @return whether it was added
	 */
	default boolean tryIncrement(String key, long limit) {
		return tryIncrement(key, 1, limit);
	}

	/**
	 * Adds {@code amount} unless the count would exceed {@code limit}; nothing is added otherwise
	 * (not even part of it). An amount of 0 adds nothing and answers whether the count is within
	 * the limit.
	 * @return whether it was added
	 */
	boolean tryIncrement(String key, long amount, long limit);

	/**
	 * As {@link #tryIncrement(String, long, long)}, and a count created by this call (the first
	 * increment of a window) expires {@code expiry} later: a windowed count ("500 a day"). The
	 * expiry is set once, when the count is created; later increments do not extend it.
	 * @param expiry at least 1ms
	 * @return whether it was added
	 */
	boolean tryIncrement(String key, long amount, long limit, Duration expiry);

	/**
	 * As {@link #tryIncrement(String, long, long)}, counted once per {@code idempotencyId}: a call
	 * made again with the same id (a retried message) within the idempotency window (default 10
	 * minutes, see {@code RedisCounters.setIdempotencyWindow}) changes nothing and answers as the
	 * first call did, added or refused.
	 * @param idempotencyId names the increment, for example the message id; not blank
	 * @return whether it was added (by this call or the first with the same id)
	 */
	boolean tryIncrement(String key, long amount, long limit, String idempotencyId);

	/**
	 * Takes 1 off the count (a cancelled sign-up); never below 0.
	 * @return the count after it
	 */
	default long decrement(String key) {
		return decrement(key, 1);
	}

	/**
	 * Takes {@code amount} off the count; a count smaller than {@code amount} becomes 0.
	 * @return the count after it
	 */
	long decrement(String key, long amount);

	/** The count now: 0 if it was never incremented, was taken back to 0 or expired. */
	long current(String key);

}
