package dev.lockstep.autoconfigure.ratelimit;

import java.time.Duration;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import dev.lockstep.RateLimitExceededException;

/**
 * Answers a {@link RateLimitExceededException} with 429 Too Many Requests, a {@code Retry-After}
 * header (whole seconds, rounded up) and an RFC 9457 problem body. Ordered last, so that the
 * application's own handler of the exception, if it has one, answers instead.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
class RateLimitExceededHandler {

	@ExceptionHandler(RateLimitExceededException.class)
	ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException ex) {
		long seconds = retryAfterSeconds(ex.getRetryAfter());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Rate limit of " + ex.getLimit() + " per " + perText(ex.getPer()) + " exceeded; retry after " + seconds
						+ ((seconds == 1) ? " second" : " seconds") + ".");
		problem.setProperty("retryAfter", seconds);
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem);
	}

	/** Whole seconds, rounded up: a client that waits that long finds a slot. */
	static long retryAfterSeconds(Duration retryAfter) {
		long nanos = retryAfter.toNanos();
		return Math.max(1, (nanos + 999_999_999) / 1_000_000_000);
	}

	private static String perText(Duration per) {
		long millis = per.toMillis();
		if (millis % 3_600_000 == 0) {
			return (millis / 3_600_000) + "h";
		}
		if (millis % 60_000 == 0) {
			return (millis / 60_000) + "m";
		}
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
