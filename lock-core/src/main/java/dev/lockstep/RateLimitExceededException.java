package dev.lockstep;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A call was refused by a rate limit ({@link dev.lockstep.annotation.RateLimited}); the method was
 * not run. In a Spring MVC application Lockstep answers it with 429 Too Many Requests and a
 * {@code Retry-After} header, unless the application handles it itself.
 */
public class RateLimitExceededException extends RuntimeException {

	private final String key;

	private final long limit;

	private final Duration per;

	private final Duration retryAfter;

	/**
	 * @param source what refused, for the message (for example "@RateLimited on OrderService.place(String)"), or null
	 * @param key the limited key
	 * @param limit the calls allowed per {@code per}
	 * @param retryAfter how long until the key allows a call again
	 */
	public RateLimitExceededException(@Nullable String source, String key, long limit, Duration per, Duration retryAfter) {
		super(((source != null && !source.isEmpty()) ? source + ": r" : "R") + "ate limit of " + limit + " per "
				+ text(per) + " for '" + key + "' exceeded; retry after " + text(retryAfter));
		this.key = key;
		this.limit = limit;
		this.per = per;
		this.retryAfter = retryAfter;
	}

	/** {@code 1m}, {@code 5s} or {@code 250ms} (rounded up), as the annotations write durations. */
	private static String text(Duration duration) {
		long millis = duration.plusNanos(999_999).toMillis();
		if (millis != 0 && millis % 60_000 == 0) {
			return millis / 60_000 + "m";
		}
		return (millis % 1000 == 0) ? millis / 1000 + "s" : millis + "ms";
	}

	/** The limited key, as the rate limiter was given it. */
	public String getKey() {
		return this.key;
	}

	/** The calls allowed per {@link #getPer()}. */
	public long getLimit() {
		return this.limit;
	}

	public Duration getPer() {
		return this.per;
	}

	/** How long until the key allows a call again (as the Redis server's clock saw it). */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

}
