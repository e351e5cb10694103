package dev.lockstep.autoconfigure.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.lockstep.LockKeyException;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.SerialQueueException;
import dev.lockstep.StaleLockException;

/**
 * Lockstep's exceptions as HTTP answers, for those the application does not handle itself (its
 * own handlers, in its controllers or its advice, come first: this advice has the lowest
 * precedence). Bodies are RFC 9457 problem details that say what happened without the lock's key
 * or the method, which go to the log:
 * <ul>
 * <li>{@link LockNotAcquiredException}: 409 Conflict, another caller holds the lock (or the
 * group's turn did not come in time); nothing was done, so the client may retry;</li>
 * <li>{@link LockUnavailableException}, {@link SerialQueueException}: 503 Service Unavailable
 * with {@code Retry-After}, Redis cannot be reached and Lockstep fails closed;</li>
 * <li>{@link LockKeyException}: 400 Bad Request, the method's key expression failed for these
 * arguments or gave no key (the caller's input; the method and expression are logged).</li>
 * </ul>
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockstepProblemDetails {

	private static final Logger logger = LoggerFactory.getLogger(LockstepProblemDetails.class);

	/** Seconds a client waits before it tries again after a 503: Lockstep retries Redis every second. */
	static final String RETRY_AFTER_SECONDS = "1";

	@ExceptionHandler
	ResponseEntity<ProblemDetail> notAcquired(LockNotAcquiredException ex) {
		logger.debug("Answered 409: {}", ex.getMessage());
		return answer(HttpStatus.CONFLICT, "Lock not acquired",
				"Another request holds the lock this one needs; nothing was done. Try again later.");
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> stale(StaleLockException ex) {
		logger.warn("Answered 409: {}", ex.getMessage());
		return answer(HttpStatus.CONFLICT, "Stale write refused",
				"A later request has written the same data; this one was too late and nothing was done.");
	}

	@ExceptionHandler({ LockUnavailableException.class, SerialQueueException.class })
	ResponseEntity<ProblemDetail> unavailable(RuntimeException ex) {
		logger.warn("Answered 503: {}", ex.getMessage());
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
			.body(problem(HttpStatus.SERVICE_UNAVAILABLE, "Coordination unavailable",
					"The service cannot reach the store it coordinates through; nothing was done. Try again shortly."));
	}

	/**
	 * 400, not 500: the expression was checked at startup, so what fails here is these arguments (a
	 * value missing, null on the way, a key over 1024 bytes), the caller's input; a 5xx would invite
	 * the client to send it again. Logged with the method and expression, for the rare expression
	 * that fails whatever it is given.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> badKey(LockKeyException ex) {
		logger.warn("Answered 400: {}", ex.getMessage(), ex);
		return answer(HttpStatus.BAD_REQUEST, "No usable lock key",
				"The request does not give the value this operation is locked on; nothing was done.");
	}

	private static ResponseEntity<ProblemDetail> answer(HttpStatus status, String title, String detail) {
		return ResponseEntity.status(status).body(problem(status, title, detail));
	}

	private static ProblemDetail problem(HttpStatus status, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		return problem;
	}

}
