package dev.lockstep.sample.web;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

import dev.lockstep.LockKeyException;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.RateLimitExceededException;
import dev.lockstep.SerialQueueException;
import dev.lockstep.sample.events.EventFullException;

/**
 * Turns every failure into a problem detail (RFC 9457) with a fitting status and never a stack
 * trace. Spring MVC's own exceptions (unknown path, wrong method...) get theirs from
 * {@link ResponseEntityExceptionHandler}, an unreadable body names the field at fault
 * ({@link UnreadableBody}); Lockstep's are mapped here:
 * <ul>
 * <li>{@link LockKeyException}: 400, the request gave no usable lock key;</li>
 * <li>{@link LockNotAcquiredException}: 409, someone else still holds the lock or the group's turn
 * did not come in time; nothing was done, so the client may retry;</li>
 * <li>{@link LockUnavailableException}, {@link SerialQueueException}: 503, Redis is unreachable and
 * Lockstep fails closed (a queued import is not stored, no place is taken);</li>
 * <li>{@link RateLimitExceededException}: 429 with {@code Retry-After}, as Lockstep's own handler
 * answers it in an application without a catch-all like {@link #unexpected} below;</li>
 * <li>{@link EventFullException}: 409, every place of the event is taken.</li>
 * </ul>
 */
@RestControllerAdvice
class ProblemDetailsAdvice extends ResponseEntityExceptionHandler {

	private static final Logger logger = LoggerFactory.getLogger(ProblemDetailsAdvice.class);

	private static final long RETRY_AFTER_SECONDS = 1;

	@ExceptionHandler
	ProblemDetail lockKey(LockKeyException ex) {
		return problem(HttpStatus.BAD_REQUEST, "No lock key", ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> notAcquired(LockNotAcquiredException ex) {
		return retryAfter(RETRY_AFTER_SECONDS, problem(HttpStatus.CONFLICT, "Busy elsewhere", ex.getMessage()));
	}

	@ExceptionHandler({ LockUnavailableException.class, SerialQueueException.class })
	ResponseEntity<ProblemDetail> unavailable(RuntimeException ex) {
		logger.warn("Answering 503: {}", ex.getMessage());
		return retryAfter(RETRY_AFTER_SECONDS, problem(HttpStatus.SERVICE_UNAVAILABLE, "Coordination unavailable",
				"Redis cannot be reached, so nothing was done; try again later"));
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex) {
		// whole seconds, rounded up: a client that waits that long finds a slot
		long seconds = Math.max(1, (ex.getRetryAfter().toNanos() + 999_999_999) / 1_000_000_000);
		ProblemDetail problem = problem(HttpStatus.TOO_MANY_REQUESTS, "Too many requests",
				"At most " + ex.getLimit() + " calls per " + ex.getPer().toMillis() + " ms for '" + ex.getKey() + "'; retry after "
						+ seconds + " s");
		problem.setProperty("retryAfter", seconds);
		return retryAfter(seconds, problem);
	}

	@ExceptionHandler
	ProblemDetail eventFull(EventFullException ex) {
		return problem(HttpStatus.CONFLICT, "Event full", ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail notFound(ResourceNotFoundException ex) {
		return problem(HttpStatus.NOT_FOUND, "Not found", ex.getMessage());
	}

	/** The last resort: the cause goes to the log, never to the client. */
	@ExceptionHandler
	ProblemDetail unexpected(Exception ex) {
		logger.error("Unexpected failure", ex);
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error", "The request failed; the server log has the cause");
	}

	@Override
	protected @Nullable ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<String> errors = ex.getBindingResult().getAllErrors().stream()
			.map((error) -> ((error instanceof FieldError field) ? field.getField() + ": " : "") + error.getDefaultMessage())
			.sorted()
			.toList();
		return invalid(ex, errors, headers, status, request);
	}

	@Override
	protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		return invalid(ex, List.of(UnreadableBody.describe(ex)), headers, status, request);
	}

	@Override
	protected @Nullable ResponseEntity<Object> handleHandlerMethodValidationException(HandlerMethodValidationException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<String> errors = ex.getParameterValidationResults().stream()
			.flatMap((result) -> result.getResolvableErrors().stream()
				.map((error) -> result.getMethodParameter().getParameterName() + ": " + error.getDefaultMessage()))
			.sorted()
			.toList();
		return invalid(ex, errors, headers, status, request);
	}

	private @Nullable ResponseEntity<Object> invalid(Exception ex, List<String> errors, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		ProblemDetail body = problem(HttpStatus.BAD_REQUEST, "Invalid request", String.join("; ", errors));
		body.setProperty("errors", errors);
		return handleExceptionInternal(ex, body, headers, status, request);
	}

	/** {@code problem} with its status and {@code Retry-After}: the client may try again after {@code seconds}. */
	private static ResponseEntity<ProblemDetail> retryAfter(long seconds, ProblemDetail problem) {
		return ResponseEntity.status(problem.getStatus())
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem);
	}

	private static ProblemDetail problem(HttpStatus status, String title, @Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		return problem;
	}

}
