package dev.lockstep.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.spel.KeyExpression;

/**
 * The rate limits of one annotated method, resolved and checked once, in the order declared.
 * @param limits at least one
 */
record RateLimitedMethod(List<Limit> limits) {

	/**
	 * One {@code @RateLimited}.
	 * @param source "@RateLimited(name = "search") on SearchService.search(String)", for messages
	 * @param name the limit's namespace: a low-cardinality tag
	 * @param key the parsed key expression
	 * @param limit calls per {@code per}
	 * @param per the period
	 * @param waitTime how long a refused call may wait for a slot
	 */
	record Limit(String source, String name, KeyExpression key, long limit, Duration per, Duration waitTime) {

		/** The rate limiter's key of this call: {@code name:key}. */
		String target(@Nullable Object[] arguments) {
			return this.name + ":" + this.key.evaluate(arguments);
		}

	}

}
